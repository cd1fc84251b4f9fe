"""Logs are events: loguru, run_id bound on every line of a run, LOG_FORMAT=json for machines."""

from __future__ import annotations

import sys

from loguru import logger

from config import Settings

TEXT_FORMAT = (
    "<green>{time:HH:mm:ss.SSS}</green> <level>{level: <7}</level> "
    "{extra[run_id]: >4} <cyan>{message}</cyan> {extra}"
)


def configure(settings: Settings) -> None:
    logger.remove()
    logger.configure(extra={"run_id": "-"})
    if settings.log_format == "json":
        logger.add(sys.stderr, level=settings.log_level, serialize=True)
    else:
        logger.add(sys.stderr, level=settings.log_level, format=TEXT_FORMAT, colorize=None)

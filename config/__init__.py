"""Configuration: one Settings object per pipeline, built once in main() and passed down."""

from config.errors import ConfigError
from config.pipelines import Pipeline, load_pipelines, select
from config.settings import Settings, load_settings

__all__ = ["ConfigError", "Pipeline", "Settings", "load_pipelines", "load_settings", "select"]

"""Configuration: one Settings object per pipeline, built once in main() and passed down."""

from config.pipelines import Pipeline, load_pipelines, select
from config.settings import ConfigError, Settings, load_settings

__all__ = ["ConfigError", "Pipeline", "Settings", "load_pipelines", "load_settings", "select"]

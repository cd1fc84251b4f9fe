"""Configuration: one Settings object, built once in main() and passed down."""

from config.errors import ConfigError
from config.settings import Settings, load_settings

__all__ = ["ConfigError", "Settings", "load_settings"]

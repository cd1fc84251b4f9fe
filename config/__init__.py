"""Configuration: one Settings object, built once in main() and passed down."""

from config.settings import ConfigError, Settings, load_settings

__all__ = ["ConfigError", "Settings", "load_settings"]

"""Configuration: the deployment's settings and one Settings per pipeline, loaded once in main() and passed down."""

from config.deployment import Deployment
from config.errors import ConfigError
from config.pipelines import Config, Pipeline, load_config, select
from config.settings import Settings, load_settings

__all__ = ["Config", "ConfigError", "Deployment", "Pipeline", "Settings", "load_config", "load_settings", "select"]

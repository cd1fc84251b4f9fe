"""The commands of the CLI, one module each (see pipeline/cli.py and docs/cli.md); the top layer."""

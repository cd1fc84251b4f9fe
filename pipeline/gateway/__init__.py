"""The tool gateway: every call the model emits passes dispatch.Gateway on its way to a capability."""

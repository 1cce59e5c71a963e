__path__ = __import__("pkgutil").extend_path(__path__, __name__)
__doc__ = """Namespace for framework plugins (``dali.plugin.jax``, ``dali.plugin.pytorch``, ...).

Core owns this ``__init__.py`` and ``dali/__init__.py``; both begin with ``pkgutil.extend_path``
so that ``dali.plugin`` spans every installed distribution. A plugin ships only its own
subpackage, e.g. ``dali/plugin/jax/``, and no ``__init__.py`` above it; a plain ``__init__.py``
here would hide plugins installed in editable mode.
"""

"""The ``gpu-sa`` command: ``main`` (the parser assembled from the registries), ``ending`` (exit statuses,
signals, failing output) and one module per command under ``commands``."""

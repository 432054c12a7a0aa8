"""The audit, one folder per job: ``models/`` (the language model), ``run/`` (running an audit),
``measure/`` (what a model knows), ``results/`` (typed results on the graph), ``views/``
(showing them) and ``questions/`` (written at build time); ``build.py`` builds a graph from any
source, ``registry.py`` finds things by name, ``config.py`` holds the typed options."""

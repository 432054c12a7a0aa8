"""Running an audit: the request, the run lifecycle, edge selection, injection, unlearning, methods."""

"""Per-fact memorization of Wikidata subjects (WikiMem): canary sentences, the calibrated
likelihood ranking, the graph's subjects, and the check that the measure separates what a model
was trained on from what it was not."""

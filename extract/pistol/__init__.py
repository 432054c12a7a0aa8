"""PISTOL contract graphs: load the datasets, generate them on a topology, their question templates."""

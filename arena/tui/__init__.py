"""Terminal apps (Textual): `arena play` (a person against a bot) and the interactive `arena
watch`."""

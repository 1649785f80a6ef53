"""The terminal adapter: ``durak-bot play`` as typed lines, in English, through the game service."""

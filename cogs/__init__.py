"""Discord adapter of durak-bot: the /durak cog, rendering, custom ids and translations."""

"""AI worker pool tests (bot/ai_pool.py)."""

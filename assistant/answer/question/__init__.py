"""The question, read once, into the plan every route reads (plan.py)."""

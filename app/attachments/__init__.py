"""Files sent with user messages: content-addressed storage, limits, and what a model sees."""

from .base import Hit, Resources, Retriever, available, is_known, make, register, variants

__all__ = ["Hit", "Resources", "Retriever", "available", "is_known", "make", "register", "variants"]

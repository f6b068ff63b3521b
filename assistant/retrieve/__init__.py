from .base import Hit, Resources, Retriever, available, make, register

__all__ = ["Hit", "Resources", "Retriever", "available", "make", "register"]

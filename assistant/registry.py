"""One registry mechanism for every kind of pluggable component (retrievers, entity
extractors, coreference backends), as spaCy has one: a component registers itself under
a name with a description; a backend with heavy imports is listed by its module and
imported the first time it is named. Every list of names (CLI choices, the settings
screen, `assistant retrievers`) comes from here."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[..., Any]
    description: str = ""
    # A variant (NAME:VARIANT) is the value of this constructor setting (rule="pav")...
    variant_setting: str | None = None
    rule_variants: tuple[str, ...] = ()
    # ...or a preset of other settings (unweaver:linked is voters="linked").
    presets: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()

    @property
    def variants(self) -> tuple[str, ...]:
        return self.rule_variants + tuple(name for name, _ in self.presets)

    def variant_settings(self, variant: str) -> dict[str, Any]:
        preset = dict(self.presets).get(variant)
        return dict(preset) if preset is not None else {self.variant_setting: variant}


class Registry:
    def __init__(self, kind: str, modules: dict[str, str] | None = None):
        self.kind = kind  # "retriever", "extractor"... (in error messages)
        self._entries: dict[str, Entry] = {}
        # name -> the module that registers it when imported (heavier backends).
        self._modules = dict(modules or {})

    def register(self, name: str, description: str = "", variant_setting: str | None = None,
                 variants: tuple[str, ...] = (), presets: dict[str, dict[str, Any]] | None = None) -> Callable:
        frozen = tuple((k, tuple(v.items())) for k, v in (presets or {}).items())

        def deco(factory):
            self._entries[name] = Entry(name, factory, description, variant_setting, tuple(variants), frozen)
            return factory

        return deco

    def entry(self, name: str) -> Entry:
        if name not in self._entries and name in self._modules:
            importlib.import_module(self._modules[name])
        if name not in self._entries:
            raise KeyError(f"unknown {self.kind} '{name}'; choose one of: {', '.join(self.names())}")
        return self._entries[name]

    def build(self, name: str, *args, **settings) -> Any:
        """NAME or NAME:VARIANT built with its settings (the variant is one of them)."""
        base, _, variant = name.partition(":")
        entry = self.entry(base)
        if variant:
            if variant not in entry.variants:
                raise KeyError(f"{self.kind} '{base}' has no variant '{variant}'; "
                               f"variants: {', '.join(entry.variants) or 'none'}")
            settings = {**settings, **entry.variant_settings(variant)}
        return entry.factory(*args, **settings)

    def is_known(self, name: str) -> bool:
        base, _, variant = name.partition(":")
        try:
            entry = self.entry(base)
        except KeyError:
            return False
        return not variant or variant in entry.variants

    def names(self) -> list[str]:
        """Every name, registered or to be imported, without importing anything."""
        return sorted(set(self._entries) | set(self._modules))

    def entries(self) -> list[Entry]:
        """Every entry in the order registered, importing the modules that register them."""
        for module in dict.fromkeys(self._modules.values()):
            importlib.import_module(module)
        return list(self._entries.values())

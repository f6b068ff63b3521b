"""Modal screens: folders, settings, help, rename."""

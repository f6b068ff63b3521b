"""The terminal UI's domain logic, in plain classes that need no running screen.

Each controller owns one domain (folders and indexing, conversations, asking, settings,
opening the index) and speaks to the screen side only through `host.Host`: the app is
the one host, and a test can drive a controller with a stand-in.
"""

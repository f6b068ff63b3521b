"""Files to text: the walk over folders, the loaders, the isolated reader, the chunker.

The loaders of office files, e-mail and calendars live in modules of their own that
register with ``loaders.register``; importing them here makes them present wherever
anything of this package is imported, and keeps ``loaders`` free of an import cycle.
"""

# (registers .txt .md .html .pdf .png .docx .epub .xlsx .ods .csv .pptx .odt .rtf .eml .mbox .ics ...)
from . import docx_and_epub, html_text, mail, office, pdf_and_images, plain_text  # noqa: F401

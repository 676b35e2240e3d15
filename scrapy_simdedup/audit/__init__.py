"""The verdict log and its report, without Scrapy: one JSON line per decision a user may
want to audit (a page dropped, annotated or kept although close to a stored one; a request
skipped or re-issued), and the summary ``scrapy simdedup report`` prints from it, as text
or as one self-contained HTML page (``html.py``)."""

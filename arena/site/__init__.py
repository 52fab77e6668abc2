"""A ladder's results for people: its static site (refresh: the report, the match list and the
replays, refreshed incrementally and atomically), the pages (report_page, match_pages; what they
say of a schedule is ``arena.render.status_text``, shared with the terminal) and the signed
publication (publish: `arena ladder publish`, `arena verify`). Above the ladder and the SPRT
tool, whose results they show."""

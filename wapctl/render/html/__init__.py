"""`-o html`: one self-contained page per report (plan, simulate, check-cycles, audit).

`page` holds the shared shell, palette and escaping, `graph` the priority-graph SVG, `extras`
the numbers a picture needs that the `-o json` document lacks; one module per report.
"""

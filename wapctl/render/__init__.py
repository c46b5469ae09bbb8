"""Reports for people (Rich) and machines (plain dicts for JSON/YAML), one module per report.

Each module turns a core result into ``*_to_dict`` (the stable machine document) and
``render_*`` (a Rich rendering). Nothing here decides anything about scheduling.
"""

"""The figures of scripts/bench-plots.py (docs/images/bench-*.png), one module a group of suites.

seeds: the published numbers of the source papers; draw: matplotlib's settings, the styles and the
Figure class; field, sims (crowd, aoi, ddm) and search (chess, connect6, hybrid): each suite's figures.
Reading a results file and picking its records is shared with scripts/figures.py (results/records.py).
"""

"""Helpers of the scripts that read the committed results files in bench/results/.

records: loading a results file and picking its records (shared by figures.py and bench-plots.py);
numbers: the number formats of the generated tables; blocks: the generators of figures.py's blocks.
Standard library only.
"""

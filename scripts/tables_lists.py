"""The pages' generated lists that are tables, for scripts/readme_tables.py (which finds this module by
its name): the input families with what each holds, from the harness's one table of them
(scripts/page_lists.py reads it). Standard library only."""
import page_lists


def tables(results_dir):
    return {"families": page_lists.families_table()}

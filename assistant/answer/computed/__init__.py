"""Questions that need a computation over a whole table (issue 49): "How much did I spend
on fuel this year?" is a sum over every row of the bank statement, not a guess from the
rows that happened to be retrieved.

- `tables.py` reads each indexed sheet back from its row sentences, with typed columns;
- `question.py` reads a question as one operation from a small, typed set (rules only:
  nothing the model writes is run);
- `plan.py` picks one table's rows that pass its filters and the column it measures, and
  refuses a table the question shares words with but asks no amount or count of;
- `matching.py` says which rows a word picks out (case, hyphens and spaces aside: "Co-op"
  is "CO-OP", "Co op", "COOP") and how the rows write what matched;
- `compute.py` runs it over the whole table and writes the answer, each row it used cited.
"""

from .compute import computed_answer, reported

__all__ = ["computed_answer", "reported"]

"""The routes a question can take, in the order they are tried. A new shape of question
gets a module here and a place in this list (and in `Answerer._ask`).

1. A follow-up is first read as a whole question ("and what about the other one?"):
   `followup.resolve_followup` (in `Engine.ask`, before any route).
2. A sum, count, average or date over whole tables and calendars is computed, every row
   cited: `answer/computed/` (in `Engine.ask`).
3. Two questions in one ("What time is my talk, and which room is it in?"): each part
   retrieved and answered from its own sources, `shape.split_parts` and `parts.py`.
4. A file named or chosen (`--in`), and a summary of one: `named.py` (`named_in`,
   `described_in`, `section_of`), written from all of the file's sections.
5. Two facts in a row ("Where was the director of film X born?"): the bridge first, then
   the question asked of it, `chain.py`.
6. A comparison or a sameness ("Which was built first, A or B?"): each side looked up,
   then decided, `compare.py`.
7. One question, from its own sources, kept to the document it names (`subject.py`) and
   refused when it asks of something no document names (`unmentioned.py`) or names nothing
   and its nouns are not said (`unnamed.py`): the short answer first where a span answers
   it (`span_first.py`, `short.py`; a list under a heading, `listed.py`), else an answer
   written in the documents' words (`shape.answer_shape` says which).
"""

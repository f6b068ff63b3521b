"""The routes a question can take, in the order they are tried. The question is read once,
into its plan (`answer/question/plan.py`: what it asks for, its parts, its options, a
chain or a comparison), and every route reads the plan, never the question's words. Each
route is a class with one method, `answer(plan, request)`: the answer, or None (not its shape, or it did not
decide), or a narrower request for the routes after it (`answer/request.py`). The order is
`Answerer.routes` (answer/answerer.py); a new shape of question gets a route here and a
place in that tuple. Every route asks its questions through `OneQuestion.ask_one`
(answer/single.py).

Before any route (in `Engine.ask`):
- a follow-up is first read as a whole question ("and what about the other one?"):
  `followup.resolve_followup`;
- a sum, count, average or date over whole tables and calendars is computed, every row
  cited: `answer/computed/`.

The routes:
1. `Parts` (`parts.py`): two questions in one ("What time is my talk, and which room is it
   in?"), each part retrieved and answered from its own sources (`Plan.parts`).
2. `Summary` (`summary.py`): a file named or chosen (`--in`) summarised from its main
   points, section by section (`named.py` finds it, `summary_points.py` reads it); a
   question that names files without asking for a summary is kept to them by the routes
   after.
3. `Chained` (`chained.py`): two facts in a row ("Where was the director of film X born?"),
   the bridge first, then the question asked of it (`question/chain.py` reads the question).
4. `Compared` (`compared.py`): a comparison or a sameness ("Which was built first, A or
   B?"), each side looked up, then decided (`question/compare.py` reads the question).
5. `Whole` (`whole.py`): the question asked whole, from its own sources, kept to the
   document it names (`subject.py`) and refused when it asks of something no document names
   (`unmentioned.py`) or names nothing and its nouns are not said (`unnamed.py`); a question
   asking who holds a role read where a document defines it (`defined_role.py`); an amount
   the question names by its line's label ("What change was I given?": "CHANGE 28.76")
   read off the first source (`labelled.py`); a question about a list answered by the list
   as its document lays it out, no model needed (`list_asked.py`); else the short answer first where a span answers it (`span_first.py`,
   `short.py`; one line of a list under a heading brings the rest, `listed.py`), else an
   answer written in the documents' words (`Plan.written` says which). It always
   answers.
"""

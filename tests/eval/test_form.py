"""Is an answer written for a person (assistant/eval/form.py): the dumps seen in real
answers are faults; plain answers with their citations are not."""

from __future__ import annotations

from assistant.eval.form import form_faults


def test_dumps_seen_in_real_answers_are_faults():
    assert "row pasted" in form_faults("412.75. row 3: item: zylophone repair; amount: 412.75; month: March [1]")
    assert "semicolon fields" in form_faults("€60.; allotment plot; €6; €60 per year, paid in may; [3]")
    assert "label-value run" in form_faults("It is 96. Item: vet; Amount (GBP): 96; Month: May")
    assert "markdown" in form_faults("## Summary\nThe plan is late.")
    assert "bullets pasted" in form_faults("The items:\n- tomatoes\n- beans")
    assert "I don't know after an answer" in form_faults(
        'Revenue was €38.6 million [1]. On "how does it compare?": I don\'t know based on these documents.')
    assert "long single fact" in form_faults("x " * 200, single_fact=True)


def test_plain_answers_have_no_fault():
    assert form_faults("£412.75 (zylophone repair, March) [1].", single_fact=True) == []
    assert form_faults("I don't know based on these documents.") == []
    assert form_faults("€420. We budget €420 a month for groceries [1].", single_fact=True) == []
    assert form_faults("x " * 200) == []  # long, but not a single fact


def test_a_sentence_opening_as_a_documents_line_reads_as_pasted():
    from assistant.eval.form import form_faults

    assert "label line pasted" in form_faults("No: Wednesday 10 September 2025 is left out of the weekly lessons.")
    assert "label line pasted" in form_faults("It cost £17.35 [1]. Total: £17.35 on the receipt.")
    assert form_faults("No, “Esme: gymnastics” is not on Wednesday 10 September 2025 [1].") == []
    assert form_faults('No: “No payments are due in February and March” [1].') == []

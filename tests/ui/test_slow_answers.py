"""Issue 62, item 7: after the first answer slow to start, the terminal UI tells once (not
again in that session nor in a later one) how long it took to start and what `assistant
doctor` advises: the smaller model where the default is in use and the small one is
installed. The answer's own timing is told; nothing is measured."""

from __future__ import annotations

import asyncio
import time

from test_app import SIZE, asked, build_app, one_document, wait_for

from assistant import models
from assistant.answer.records.record import Answer, Timings
from assistant.doctor import answer_speed
from assistant.ui.app import AssistantApp
from assistant.ui.slow_answers import FIRST_TOKEN_GOAL_S, slow_answer_notice, sooner_model

TITLE = "answers start slowly here"
BOTH = {models.DEFAULT_LLM, models.SMALL_LLM}


def test_a_slow_start_is_told_with_the_doctor_s_advice_and_a_quick_one_is_not():
    slow = slow_answer_notice(12.4, models.DEFAULT_LLM, BOTH)
    assert slow is not None and "started 12 s after the question (over 5 s)" in slow, slow
    assert f'`llm = "{models.SMALL_LLM}"` in config.toml, or the Settings screen' in slow, slow
    assert "`assistant doctor`" in slow
    # Quick, at the goal, or no first word to wait for (a computed sum): nothing to tell.
    assert slow_answer_notice(3.0, models.DEFAULT_LLM, BOTH) is None
    assert slow_answer_notice(FIRST_TOKEN_GOAL_S, models.DEFAULT_LLM, BOTH) is None
    assert slow_answer_notice(None, models.DEFAULT_LLM, BOTH) is None
    # The small model in use already, or not installed: the wait and the doctor, no switch.
    for llm, installed in ((models.SMALL_LLM, BOTH), (models.DEFAULT_LLM, {models.DEFAULT_LLM})):
        told = slow_answer_notice(9.0, llm, installed)
        assert told is not None and "started 9 s" in told and "`assistant doctor`" in told, told
        assert "config.toml" not in told and f'llm = "{models.SMALL_LLM}"' not in told, told
    # The advice is the doctor's own, word for word.
    advice = sooner_model(models.DEFAULT_LLM, True)
    assert advice in slow and advice in answer_speed(models.DEFAULT_LLM, 45.0, True, 450).detail


def slow_notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.title == TITLE]


def test_the_first_slow_answer_is_told_once_in_this_session_and_the_next(make_engine, example_docs, tmp_path):
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])
    # The real model, its first word held past the goal: an answer slow to start.
    generator = app.engine.generator
    real_stream = generator.stream

    def slow_to_start(*args, **kwargs):
        time.sleep(FIRST_TOKEN_GOAL_S + 0.5)
        yield from real_stream(*args, **kwargs)

    generator.stream = slow_to_start
    small_installed = models.SMALL_LLM in {n for n, s in models.load_registry().items() if s.available()}

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            first = await asked(pilot, "Who built the telescope of the observatory?")
            assert first.text and first.state != "stopped"
            [told] = slow_notices(app)
            assert "s after the question (over 5 s)" in told and "`assistant doctor`" in told, told
            assert (f'llm = "{models.SMALL_LLM}"' in told) == small_installed, told  # the default is in use
            second = await asked(pilot, "When was the observatory founded?")
            assert second.text and len(app.query("AnswerView")) == 2
            assert len(slow_notices(app)) == 1, slow_notices(app)

    try:
        asyncio.run(session())
    finally:
        del generator.stream  # the session-wide generator streams at full speed again

    # A later session (same config): a slow answer is not told again. With another config
    # (a person not told yet), the same answer is.
    slow = Answer("Who built it?", "Mr Olsson [1].", "auto", timings=Timings(to_first_token=9.0, first_shown=9.0))

    async def later(config_path, expected: int):
        again = AssistantApp(app.engine, config_path=config_path, watch=False, warm_up=False)
        async with again.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: again.ready, 120, "the index to open")
            again.asking.tell_if_slow(slow)
            await pilot.pause()
            assert len(slow_notices(again)) == expected, slow_notices(again)

    asyncio.run(later(tmp_path / "config.toml", 0))
    asyncio.run(later(tmp_path / "other" / "config.toml", 1))
    assert "slow answer" in (tmp_path / "told.toml").read_text()  # beside the config, the TUI's own

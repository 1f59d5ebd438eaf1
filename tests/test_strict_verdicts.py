"""Strict verdicts (issue 12, item 2): faults that used to pass or get the wrong name, each shown by a
small loop with exactly that fault, and the cases that make every stop reason reachable.

Each faulty loop is the same small loop as :func:`good_loop` (seed 001's shape: a step cap that
raises, tool errors returned with ``is_error``) with one change, so a verdict that moves can only
come from that change.
"""

from __future__ import annotations

import json
from typing import get_args

import pytest
from anthropic.types import StopReason

import agentlab
from agentlab.fake._catalogue import GATEWAY_STOP_SEQUENCES, tagged_weather
from agentlab.grader import CASE_NAMES, CASES, grade, judge
from agentlab.grader._detect import COMPLETION_CLAIM, UNFINISHED, claims_completion, says_unfinished
from agentlab.grader._harness import run_case
from agentlab.loops.specimens import correct_loop

from .loops.seed_000 import agent_loop as seed_000_loop
from .loops.seed_001 import agente as seed_001_loop

MODEL = "claude-sonnet-5"


def _results(response, run_tool) -> list[dict]:
    results = []
    for b in response.content:
        if b.type == "tool_use":
            try:
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
            except Exception as exc:  # noqa: BLE001 - the error goes back to the model
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": f"Error: {exc}", "is_error": True})
    return results


def _text(response) -> str:
    return "".join(b.text for b in response.content if b.type == "text")


def make_loop(*, at_cap=None, on_max_tokens=None, order="assistant-first", nudge=None, cap=10):
    """The small loop, with one change chosen by the arguments.

    at_cap: what to do at the step cap (default: raise); a str is returned.
    on_max_tokens: what to do on max_tokens (default: raise); a str is returned.
    order: "assistant-first" (right) or "results-first" (results appended before the assistant turn).
    nudge: a text sent as a SEPARATE user message after the tool_result message.
    """
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        errors = 0
        for _ in range(cap):
            response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
            if response.stop_reason in ("end_turn", "stop_sequence"):
                return _text(response)
            if response.stop_reason == "tool_use":
                results = _results(response, run_tool)
                if order == "results-first":
                    messages.append({"role": "user", "content": results})
                    messages.append({"role": "assistant", "content": response.content})
                else:
                    messages.append({"role": "assistant", "content": response.content})
                    messages.append({"role": "user", "content": results})
                if nudge is not None:
                    messages.append({"role": "user", "content": nudge})
                errors = errors + 1 if all(r.get("is_error") for r in results) else 0
                if errors >= 3:
                    raise RuntimeError(f"The tools failed {errors} turns in a row")
            elif response.stop_reason == "pause_turn":
                messages.append({"role": "assistant", "content": response.content})
            elif response.stop_reason == "max_tokens":
                if on_max_tokens is not None:
                    return on_max_tokens
                raise RuntimeError("Answer cut by max_tokens")
            elif response.stop_reason == "refusal":
                return "The model declined this request."
            else:
                raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
        if at_cap is not None:
            return at_cap
        raise RuntimeError(f"Sin terminar tras {cap} pasos")
    return loop


good_loop = make_loop()


def _diagnoses(report) -> dict[str, str]:
    return {c.name: c.diagnosis for c in report.cases if not c.passed}


def test_the_small_loop_passes_every_case():
    report = grade(good_loop)
    assert report.passed, str(report)


# ------------------------------------------------------------------------------------ 1. stopping at one's own cap


def test_a_success_message_at_the_loops_own_cap_is_not_a_pass():
    report = grade(make_loop(at_cap="Task completed."), only=["long_task", "stuck_model"])
    assert _diagnoses(report) == {"long_task": "iteration-cap-as-stop", "stuck_model": "iteration-cap-as-stop"}
    assert "'Task completed.'" in report["long_task"].explanation


def test_a_success_message_before_running_the_last_tools_is_named_the_same():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        for step in range(10):
            response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
            if response.stop_reason == "end_turn":
                return _text(response)
            if step == 9:
                return "Task completed."  # checked before the last tools run
            messages += [{"role": "assistant", "content": response.content},
                         {"role": "user", "content": _results(response, run_tool)}]
        raise RuntimeError("unreachable")
    report = grade(loop, only=["long_task", "stuck_model"])
    assert _diagnoses(report) == {"long_task": "iteration-cap-as-stop", "stuck_model": "iteration-cap-as-stop"}


@pytest.mark.parametrize("claim", ["Done.", "All done!", "Tarea completada.", "Listo", "Finished successfully"])
def test_completion_claims_in_either_language_fail_at_the_cap(claim):
    assert grade(make_loop(at_cap=claim), only=["stuck_model"])["stuck_model"].diagnosis == "iteration-cap-as-stop"


@pytest.mark.parametrize("said", [
    "[incomplete: hit the 10-step safety cap]",
    "Task not finished: stopped at the 10-step limit.",
    "Sin terminar tras 10 pasos",
    "No pude terminar la tarea: se alcanzó el tope de pasos.",
    "Stopped early: tool_use",                              # names the stop reason: the structural sign
    "Here is what I have so far; the job is still pending.",  # the loop's own words, no completion claim
])
def test_a_result_that_says_it_is_unfinished_is_a_loud_stop(said):
    report = grade(make_loop(at_cap=said), only=["long_task", "stuck_model"])
    assert report.passed, str(report)
    assert report["long_task"].note and "loud stop" in report["long_task"].note["en"]


@pytest.mark.parametrize("said", [
    "Here is what I found.",                                 # vague: no unfinished signal
    "ok",
    "All done, nothing incomplete.",                         # a claim; the negated word is no signal
    "Task completed! (partial results are not a concern)",   # a claim; the signal is waved away
    "Task completed successfully within all limits.",
    "No errors, no partial results.",                        # only negated signals
])
def test_a_vague_or_claiming_text_at_the_cap_is_not_a_pass(said):
    report = grade(make_loop(at_cap=said), only=["long_task", "stuck_model"])
    assert _diagnoses(report) == {"long_task": "iteration-cap-as-stop", "stuck_model": "iteration-cap-as-stop"}, said


def test_negations_and_dismissals_are_not_unfinished_signals():
    assert not says_unfinished("All done, nothing incomplete.", "tool_use")
    assert not says_unfinished("Task completed! (partial results are not a concern)", "tool_use")
    assert not says_unfinished("Sin errores, nada incompleto.", "tool_use")
    assert says_unfinished("Partial: the step limit was reached.", "tool_use")
    assert claims_completion("All done, nothing incomplete.") and claims_completion("Tarea completada.")
    assert not claims_completion("Task not finished") and not claims_completion("The task could not be completed")
    assert not claims_completion("Sin éxito: se alcanzó el límite.")


def test_the_seeds_loop_that_raises_at_its_cap_still_passes_with_a_note():
    case = grade(seed_001_loop, only=["long_task"])["long_task"]
    assert case.passed and "10 requests" in case.note["en"]


def test_a_success_message_on_max_tokens_is_ignores_max_tokens():
    report = grade(make_loop(on_max_tokens="Task completed."), only=["max_tokens_text", "max_tokens_tool_use"])
    assert _diagnoses(report) == {"max_tokens_text": "ignores-max-tokens", "max_tokens_tool_use": "ignores-max-tokens"}
    honest = grade(make_loop(on_max_tokens="Stopped early: max_tokens"), only=["max_tokens_text", "max_tokens_tool_use"])
    assert honest.passed, str(honest)


def test_the_word_lists_catch_negated_claims():
    assert COMPLETION_CLAIM.search("Task not finished") and UNFINISHED.search("Task not finished")
    assert says_unfinished("Sin terminar tras 10 pasos", "tool_use")
    assert says_unfinished("Stopped early: max_tokens", "max_tokens")
    assert not says_unfinished("Task completed.", "tool_use")
    assert not COMPLETION_CLAIM.search("incomplete") and not COMPLETION_CLAIM.search("unfinished")
    assert says_unfinished("The import completed with errors.", "tool_use")
    assert says_unfinished("Terminado con errores: falló la herramienta.", "tool_use")


# ------------------------------------------------------------------------------------ 2. a tool error that never reaches the model


def apology_loop(client, prompt, tools, run_tool):
    """Seed 000's loop (run_tool bare) inside a top-level `except Exception` that apologises."""
    try:
        return seed_000_loop(client, prompt, tools, run_tool)
    except Exception:  # noqa: BLE001 - the fault under test
        return "Sorry, something went wrong. Please try again later."


def test_a_tool_error_turned_into_an_apology_is_tool_error_crashes_loop():
    report = grade(apology_loop, only=["failing_tool", "persistent_tool_errors", "end_turn"])
    assert _diagnoses(report) == {"failing_tool": "tool-error-crashes-loop",
                                  "persistent_tool_errors": "tool-error-crashes-loop"}
    explanation = report["failing_tool"].explanation
    assert "never got a tool_result" in explanation and "'Sorry, something went wrong." in explanation


def test_a_tool_error_turned_into_a_default_answer_or_another_exception_is_named_too():
    def default_answer(client, prompt, tools, run_tool):
        try:
            return seed_000_loop(client, prompt, tools, run_tool)
        except Exception:  # noqa: BLE001
            return "Your order is arriving on Thursday."  # even the right answer, made up
    def own_exception(client, prompt, tools, run_tool):
        try:
            return seed_000_loop(client, prompt, tools, run_tool)
        except Exception:  # noqa: BLE001
            raise RuntimeError("agent failed") from None  # the chain to the tool's error is cut
    for loop in (default_answer, own_exception):
        assert grade(loop, only=["failing_tool"])["failing_tool"].diagnosis == "tool-error-crashes-loop"


def test_errors_sent_back_then_a_bound_is_not_a_crash():
    # the correct loop's third failing turn never reaches the model (the bound trips first): the first did
    assert grade(correct_loop, only=["persistent_tool_errors"]).passed


# ------------------------------------------------------------------------------------ 3. consecutive user messages


def test_text_in_a_separate_user_message_after_the_results_is_text_after_tool_result():
    report = grade(make_loop(nudge="Please continue."), only=["end_turn", "parallel_tools"])
    assert _diagnoses(report) == {"end_turn": "text-after-tool-result", "parallel_tools": "text-after-tool-result"}
    assert "messages.2-3 (one turn once the API merges them)" in report["end_turn"].explanation


def test_a_separate_user_message_before_the_results_is_still_a_pairing_error():
    # pairing is checked on the messages as sent (reference 3.2 rule 6): not merged away
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        for _ in range(10):
            response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
            if response.stop_reason == "end_turn":
                return _text(response)
            messages += [{"role": "assistant", "content": response.content}, {"role": "user", "content": "Results:"},
                         {"role": "user", "content": _results(response, run_tool)}]
        raise RuntimeError("cap")
    assert grade(loop, only=["end_turn"])["end_turn"].diagnosis == "text-before-tool-result"


# ------------------------------------------------------------------------------------ 4. order of the turns


def test_results_appended_before_the_assistant_turn_name_the_misplaced_assistant_turn():
    report = grade(make_loop(order="results-first"), only=["end_turn", "parallel_tools", "chained_tools"])
    assert set(_diagnoses(report).values()) == {"missing-assistant-turn"}
    case = report["end_turn"]
    assert case.diagnoses == ["missing-assistant-turn"]  # not results-not-appended: the results are there
    assert "messages.1 holds tool results but the assistant turn that asked for them comes after it (messages.2)" \
        in case.explanation


# ------------------------------------------------------------------------------------ 5. zero requests, real str


def test_a_hard_coded_answer_with_zero_requests_fails_every_case():
    answers = {case.scenario.prompt: case.answer_contains or "The model declined this request." for case in CASES}

    def loop(client, prompt, tools, run_tool):
        return answers[prompt]
    report = grade(loop)
    assert {c.name: c.diagnosis for c in report.cases} == {name: "wrong-answer" for name in CASE_NAMES}
    assert "without calling the API" in report["end_turn"].explanation


def test_raising_without_a_request_is_not_a_loud_stop():
    def loop(client, prompt, tools, run_tool):
        raise RuntimeError("Sin terminar tras 0 pasos")
    report = grade(loop, only=["refusal", "stuck_model", "end_turn"])
    assert {c.name: c.diagnosis for c in report.cases} == {"refusal": "loop-raised", "stuck_model": "loop-raised",
                                                           "end_turn": "loop-raised"}


class Sneaky(str):
    """A str whose methods all lie, and record that they were called."""

    calls: list[str] = []

    def __contains__(self, item):
        Sneaky.calls.append("__contains__")
        return True

    def strip(self, *args):
        Sneaky.calls.append("strip")
        raise AssertionError("strip called")

    def __eq__(self, other):
        Sneaky.calls.append("__eq__")
        return True

    __hash__ = str.__hash__

    def __repr__(self):
        Sneaky.calls.append("__repr__")
        raise AssertionError("repr called")

    def __len__(self):
        Sneaky.calls.append("__len__")
        raise AssertionError("len called")


def test_a_str_subclass_is_returned_non_string_and_none_of_its_methods_is_called():
    Sneaky.calls.clear()

    def loop(client, prompt, tools, run_tool):
        return Sneaky(seed_001_loop(client, prompt, tools, run_tool))
    report = grade(loop, only=["end_turn", "stuck_model", "refusal"])
    assert {c.name: c.diagnosis for c in report.cases if not c.passed} == {
        "end_turn": "returned-non-string", "refusal": "returned-non-string"}  # stuck_model raised: no value
    assert "str subclass" in report["end_turn"].explanation
    json.dumps(report.to_dict())
    str(report)
    assert Sneaky.calls == []


def test_judge_on_a_run_with_a_str_subclass_does_not_touch_it():
    Sneaky.calls.clear()
    run = run_case(lambda client, prompt, tools, run_tool: Sneaky("It's 95F"), CASES[0])
    result = judge(run)
    assert not result.passed and result.diagnosis == "returned-non-string" and Sneaky.calls == []
    assert type(run.returned) is Sneaky  # judge works on a copy


# ------------------------------------------------------------------------------------ every stop reason


def test_every_stop_reason_is_met_by_at_least_one_case():
    met: dict[str, list[str]] = {}
    for case in CASES:
        run = run_case(correct_loop, case)
        for reason in run.journal.stop_reasons:
            if reason is not None:
                met.setdefault(reason, []).append(case.name)
    missing = set(get_args(StopReason)) - set(met)
    assert not missing, f"no case makes a loop meet {sorted(missing)}"
    assert "stop_sequence" in met and "model_context_window_exceeded" in met


def test_the_stop_sequence_case_comes_from_a_gateway_not_from_the_loop():
    scenario = tagged_weather()
    client = agentlab.fake_client(scenario)
    messages = [{"role": "user", "content": scenario.prompt}]
    first = client.messages.create(model=MODEL, max_tokens=1024, tools=list(scenario.tools), messages=messages)
    assert first.stop_reason == "tool_use"
    call = next(b for b in first.content if b.type == "tool_use")
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                               "content": scenario.run_tool(call.name, call.input)}]}]
    second = client.messages.create(model=MODEL, max_tokens=1024, tools=list(scenario.tools), messages=messages)
    assert (second.stop_reason, second.stop_sequence) == ("stop_sequence", "</answer>")
    assert second.content[0].text.startswith("<answer>It's 95F") and "</answer>" not in second.content[0].text
    journal = agentlab.journal(client)
    assert all(e.request["stop_sequences"] == GATEWAY_STOP_SEQUENCES for e in journal.steps)
    # the request's own stop_sequences win over the gateway's
    own = client.messages.create(model=MODEL, max_tokens=1024, tools=list(scenario.tools), messages=messages,
                                 stop_sequences=["Tell me"])
    assert own.stop_reason == "stop_sequence" and own.stop_sequence == "Tell me"
    # without the gateway the same model ends its turn: the real API never stops on a sequence nobody sent
    plain = agentlab.fake_client("weather")
    answer = plain.messages.create(model=MODEL, max_tokens=1024, tools=list(scenario.tools), messages=messages)
    assert answer.stop_reason == "end_turn"


STEPS = {"end_turn": "finish", "tool_use": "run_tools", "pause_turn": "resume", "max_tokens": "cut",
         "refusal": "refused"}
"""A stop-reason dispatch table that lacks stop_sequence and model_context_window_exceeded, as in
the bug report the issue cites (and the SDK tool runner's older tables)."""


def dispatch_loop(client, prompt, tools, run_tool):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(10):
        response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
        step = STEPS[response.stop_reason]  # KeyError on a stop reason the table lacks
        if step == "finish":
            return _text(response)
        if step == "refused":
            return "The model declined this request."
        if step == "cut":
            raise RuntimeError("Answer cut by max_tokens")
        messages.append({"role": "assistant", "content": response.content})
        if step == "run_tools":
            results = _results(response, run_tool)
            messages.append({"role": "user", "content": results})
    raise RuntimeError("Sin terminar tras 10 pasos")


def dispatch_loop_with_default(client, prompt, tools, run_tool):
    """The same table looked up with .get(..., "resume"): an unknown stop reason calls again."""
    messages = [{"role": "user", "content": prompt}]
    for _ in range(10):
        response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
        step = STEPS.get(response.stop_reason, "resume")
        if step == "finish":
            return _text(response)
        if step == "refused":
            return "The model declined this request."
        if step == "cut":
            raise RuntimeError("Answer cut by max_tokens")
        messages.append({"role": "assistant", "content": response.content})
        if step == "run_tools":
            messages.append({"role": "user", "content": _results(response, run_tool)})
    raise RuntimeError("Sin terminar tras 10 pasos")


@pytest.mark.parametrize("loop", [dispatch_loop, dispatch_loop_with_default])
def test_a_dispatch_table_without_two_stop_reasons_fails_both_cases(loop):
    report = grade(loop)
    assert _diagnoses(report) == {"context_window": "unhandled-stop-reason", "stop_sequence": "unhandled-stop-reason"}


def test_the_lookup_crash_is_explained_with_the_missing_key():
    case = grade(dispatch_loop, only=["stop_sequence"])["stop_sequence"]
    assert "KeyError: 'stop_sequence'" in case.explanation and "dispatch" in case.explanation


def test_a_deliberate_error_naming_stop_sequence_is_a_loud_stop_with_a_note():
    # seed 000's loop raises RuntimeError("unhandled stop_reason: ...") on anything it does not continue on
    case = grade(seed_000_loop, only=["stop_sequence"])["stop_sequence"]
    assert case.passed and "controlled end" in case.note["en"]


def test_seed_loops_and_the_reference_pass_the_new_case_without_notes():
    for loop in (correct_loop, seed_001_loop, agentlab.loops.agent_loop):
        case = grade(loop, only=["stop_sequence"])["stop_sequence"]
        assert case.passed and case.note is None, (loop, case)


# ------------------------------------------------------------------------------------ lesson 09's mystery loop


def mystery_loop(client, prompt, tools, run_tool):
    """Lesson 09's "Spot it" loop, verbatim: it promises six tags."""
    messages = [{"role": "user", "content": prompt}]
    for _ in range(20):
        response = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
        for block in response.content:
            if block.type == "tool_use":
                result = run_tool(block.name, block.input)
                messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": block.id, "content": result}]})
    return "Done."


def test_lesson_09_mystery_loop_gets_its_six_tags():
    report = grade(mystery_loop)
    assert _diagnoses(report) == {
        "parallel_tools": "split-tool-results",
        "failing_tool": "tool-error-crashes-loop",
        "persistent_tool_errors": "tool-error-crashes-loop",
        "pause_turn": "ignores-pause-turn",
        "max_tokens_text": "ignores-max-tokens",
        "max_tokens_tool_use": "ignores-max-tokens",
        "context_window": "unhandled-stop-reason",
        "stuck_model": "iteration-cap-as-stop",  # `return "Done."` after twenty turns
    }
    assert len(set(_diagnoses(report).values())) == 6


def test_an_answer_written_in_the_code_after_a_token_request_is_wrong_answer():
    """A loop that makes one request and then returns the case's answer from a table (the answers
    are public: the catalogue, the README) never let the model finish: every finish case fails."""
    from agentlab.grader import CASES

    answers = {case.scenario.prompt: case.answer_contains for case in CASES}

    def token_request(client, prompt, tools, run_tool):
        reply = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools,
                                       messages=[{"role": "user", "content": prompt}])
        if answers.get(prompt):
            return f"Answer: {answers[prompt]}"
        raise RuntimeError(f"stopped: {reply.stop_reason}")

    finish = [case.name for case in CASES if case.expect == "finish"]
    report = agentlab.grade(token_request, only=finish)
    multi_step = [r for r in report.cases if r.name not in ("says_done",)]
    assert all(not r.passed and r.diagnosis in ("wrong-answer", "ignores-pause-turn") for r in multi_step), \
        [(r.name, r.diagnosis) for r in report.cases]
    assert any("never gave it" in r.explanation for r in report.cases)

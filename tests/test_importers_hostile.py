"""bot.kb.importers.hf_config on hostile and broken input: ConfigImportError naming the field and the
bound, never another exception (issue 17). Each test uses the smallest input of its kind.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from bot.kb.importers.hf_config import (
    FIELD_BOUNDS,
    MAX_CONFIG_INT_DIGITS,
    MAX_CONFIG_JSON_CHARS,
    MAX_CONFIG_JSON_DEPTH,
    ConfigImportError,
    HfImportResult,
    compute_params_from_config,
    import_hf_config,
    load_config_json,
)

# A small valid Llama-style config (sizes of Llama 2 7B, fewer layers) to break one field at a time.
BASE = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "tie_word_embeddings": False}


def _text(**changes: object) -> str:
    return json.dumps({**BASE, **changes})


def test_the_base_config_imports():
    # per layer 202,383,360 (worked out in test_importers.py, test_llama_2_7b_config) x 2 = 404,766,720
    # + embeddings and LM head 2 x 32,000 x 4,096 = 262,144,000 + final norm 4,096     = 666,914,816
    assert compute_params_from_config(BASE) == (666_914_816, None)


def test_nesting_a_thousand_levels_deep():
    text = '{"a": ' * 1000 + "1" + "}" * 1000  # RecursionError in json.loads without the bound
    with pytest.raises(ConfigImportError, match=f"deeper than {MAX_CONFIG_JSON_DEPTH} levels"):
        load_config_json(text)
    text = '{"a": ' * (MAX_CONFIG_JSON_DEPTH + 1) + "1" + "}" * (MAX_CONFIG_JSON_DEPTH + 1)  # parses; still too deep
    with pytest.raises(ConfigImportError, match=f"deeper than {MAX_CONFIG_JSON_DEPTH} levels"):
        import_hf_config(text, "x")
    assert load_config_json('{"a": ' * (MAX_CONFIG_JSON_DEPTH - 1) + "1" + "}" * (MAX_CONFIG_JSON_DEPTH - 1))


def test_an_integer_of_4400_digits_names_the_field():
    text = '{"vocab_size": 1' + "0" * 4399 + "}"  # ValueError (int max str digits) in json.loads
    with pytest.raises(ConfigImportError, match=r"field vocab_size is an integer of 4,400 digits; "
                                                f"at most {MAX_CONFIG_INT_DIGITS} digits"):
        load_config_json(text)
    with pytest.raises(ConfigImportError, match=r"field eos_token_id\[1\] is an integer of 19 digits"):
        load_config_json('{"eos_token_id": [2, 1000000000000000000]}')


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_name_the_field(literal):
    with pytest.raises(ConfigImportError, match=f"field hidden_size is {literal}: only finite numbers"):
        load_config_json('{"hidden_size": ' + literal + "}")


def test_non_finite_floats_in_a_dict_are_refused():
    for value in (math.inf, math.nan, 1e300):
        with pytest.raises(ConfigImportError, match="field hidden_size must be a positive integer of at most 131,072"):
            compute_params_from_config({**BASE, "hidden_size": value})


def test_a_vocabulary_of_ten_to_the_300_names_field_and_bound():
    # 10**300 has 301 digits: under Python's 4,300-digit limit, so only the field bound stops it
    # (before, the parameter count overflowed float division: OverflowError).
    with pytest.raises(ConfigImportError, match=r"vocab_size must be a positive integer of at most 4,194,304 "
                                                r"\(the importer's bound\), not an integer of about 301 digits"):
        import_hf_config({**BASE, "vocab_size": 10**300}, "x")
    assert FIELD_BOUNDS["vocab_size"] == (1, 4_194_304)


@pytest.mark.parametrize("value", [0, -1, -4096, 0.5, True, "4096", [4096], {"v": 1}])
def test_zero_negative_and_non_integer_sizes(value):
    with pytest.raises(ConfigImportError, match="field hidden_size must be a positive integer"):
        compute_params_from_config({**BASE, "hidden_size": value})


@pytest.mark.parametrize("field", ["moe_layer_freq", "decoder_sparse_step"])
def test_zero_divisors_are_refused(field):
    model_type = "deepseek_v3" if field == "moe_layer_freq" else "qwen2_moe"
    moe = {"model_type": model_type, "n_routed_experts": 4, "num_experts": 4, "num_experts_per_tok": 2,
           "moe_intermediate_size": 1024, field: 0}
    with pytest.raises(ConfigImportError, match=f"field {field} must be a positive integer"):
        compute_params_from_config({**BASE, **moe})


def test_zero_sliding_window_pattern_is_refused():
    with pytest.raises(ConfigImportError, match="field sliding_window_pattern must be a positive integer"):
        import_hf_config({**BASE, "model_type": "gemma3", "sliding_window": 1024, "sliding_window_pattern": 0}, "g")


def test_experts_beyond_the_bound():
    with pytest.raises(ConfigImportError, match="field num_local_experts must be a positive integer of at most 4,096"):
        compute_params_from_config({**BASE, "model_type": "mixtral", "num_local_experts": 10**12,
                                    "num_experts_per_tok": 2})


def test_per_layer_lists_of_the_wrong_shape():
    with pytest.raises(ConfigImportError, match="field mlp_only_layers must be a list"):
        compute_params_from_config({**BASE, "model_type": "qwen2_moe", "num_experts": 4, "num_experts_per_tok": 2,
                                    "moe_intermediate_size": 1024, "mlp_only_layers": {"0": 1}})
    # unhashable entries used to raise TypeError; non-integers are simply not layer numbers
    total, _ = compute_params_from_config({**BASE, "model_type": "qwen2_moe", "num_experts": 4,
                                           "num_experts_per_tok": 2, "moe_intermediate_size": 1024,
                                           "mlp_only_layers": [{}]})
    assert total > 0


def test_lone_surrogates_never_escape_into_the_entry():
    text = _text(model_type="\ud800", torch_dtype="\udfff")
    result = import_hf_config(text, "surrogate")
    dumped = json.dumps(result.entry, default=str, ensure_ascii=False)
    dumped.encode("utf-8")  # valid UTF-8: the surrogates were not copied
    assert result.entry["family"] == "unknown"
    assert any("model_type '\\ud800' is not a model type name" in w for w in result.warnings)
    with pytest.raises(ConfigImportError, match="model_id"):
        import_hf_config(BASE, "\ud800")


def test_text_over_the_size_bound_and_non_text():
    with pytest.raises(ConfigImportError, match=f"at most {MAX_CONFIG_JSON_CHARS:,} are accepted"):
        load_config_json("{" + " " * MAX_CONFIG_JSON_CHARS + "}")
    with pytest.raises(ConfigImportError, match="must be text"):
        load_config_json(b"{}")  # type: ignore[arg-type]
    with pytest.raises(ConfigImportError, match="must be a JSON object, not list"):
        load_config_json("[]")
    assert load_config_json("\ufeff" + _text()) == BASE  # a byte-order mark is allowed


def test_paths_that_cannot_be_read():
    with pytest.raises(ConfigImportError, match="cannot read"):
        import_hf_config("no\x00such", "x")  # NUL in a path: ValueError before
    with pytest.raises(ConfigImportError, match="cannot read"):
        import_hf_config("/nonexistent/config.json", "x")


def test_declared_size_must_be_finite_and_positive():
    for declared in (math.nan, math.inf, -7.0, 0.0):
        with pytest.raises(ConfigImportError, match="declared size"):
            import_hf_config(BASE, "x", declared_params_b=declared)


_JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
                       st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
_JSON = st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5),
                                                                                              inner, max_size=3),
                     max_leaves=10)
_KEYS = sorted({*BASE, *FIELD_BOUNDS, "num_local_experts", "n_routed_experts", "text_config", "layer_types",
                "mlp_only_layers", "use_sliding_window", "quantization_config", "torch_dtype", "n_embd", "n_layer",
                "n_head", "n_positions", "multi_query", "new_decoder_architecture", "topk_method",
                "is_encoder_decoder", "attention_bias", "mlp_bias"})


@seed(17)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=5),
       model_type=st.sampled_from(["llama", "mixtral", "qwen2_moe", "deepseek_v3", "gemma3", "falcon", "gpt2", "x"]))
def test_any_json_values_give_a_result_or_config_import_error(changes, model_type):
    config = {**BASE, "model_type": model_type, **changes}
    try:
        result = import_hf_config(config, "fuzzed")
    except ConfigImportError as exc:
        str(exc).encode("utf-8")  # the message is printable, valid UTF-8
        return
    assert isinstance(result, HfImportResult) and result.params_total > 0
    json.dumps(result.entry, default=str, allow_nan=False)

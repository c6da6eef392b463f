"""GPU Advisor's sizing engine: memory, fit, speed, training time and cost, by deterministic formulas.

Pure Python over :mod:`bot.kb` (no Slack, no database). Every result carries ``assumptions``,
``warnings`` and ``sources``; constants and efficiency factors live in
``knowledge/efficiency.yaml`` and engine defaults in ``knowledge/engines.yaml`` (loaded once per
knowledge-base object).

Public API::

    estimate_inference(kb, model_id, gpu_id, count=None, precision="bf16", kv_precision=None,
                       context_tokens=None, input_tokens=None, output_tokens=None, batch_size=1,
                       engine="vllm", tensor_parallel=None, pipeline_parallel=None, replicas=None,
                       objective=None, expert_parallel=None, attention_data_parallel=False,
                       prefix_cached_tokens=None) -> InferenceEstimate
    serving_workload(kb, context_tokens=None, input_tokens=None, output_tokens=None,
                     worst_case=False) -> ServingWorkload   # .estimate_kwargs() for estimate_inference
    estimate_images(kb, model_id, gpu_id, count=1, width=None, height=None, steps=None,
                    batch_size=1, precision=None, engine="diffusers", images=None,
                    price_per_gpu_hour=None) -> ImageEstimate
    estimate_transcription(kb, model_id, gpu_id, audio_hours=None, count=1, precision=None,
                           engine="faster-whisper", batch_size=1, beam_size=5,
                           price_per_gpu_hour=None) -> TranscriptionEstimate
    estimate_embeddings(kb, model_id, gpu_id, documents=None, tokens_per_document=512, count=1,
                        precision=None, engine="tei", price_per_gpu_hour=None) -> EmbeddingEstimate
    estimate_training(kb, model_id, gpu_id, count, tokens, precision="bf16", recompute=False,
                      price_per_gpu_hour=None, ...) -> TrainingEstimate
    estimate_finetune(kb, model_id, gpu_id, count=1, method="lora", seq_len=None, micro_batch=1,
                      tokens=None, lora_rank=16, ...) -> FinetuneEstimate
    cost_per_million_tokens(price_per_hour_usd, tokens_per_s) -> float
    generic_model(params_total_b, params_active_b=None, ...) -> Model   # "a 7B model"

``model_id``/``gpu_id`` accept ids or :class:`~bot.kb.schema.Model` / :class:`~bot.kb.schema.Gpu`
objects; the ``*_for`` variants take the objects directly.
"""

from bot.estimation.common import (
    GB,
    GIB,
    KvShape,
    generic_model,
    kv_shape,
    resolve_precision,
    usable_memory_gb,
    valid_tp_degrees,
    weight_bytes,
)
from bot.estimation.cost import (
    cost_per_million_tokens,
    gpu_hour_price,
)
from bot.estimation.efficiency import EfficiencyTable, efficiency_for, load_efficiency
from bot.estimation.inference import estimate_inference, estimate_inference_for
from bot.estimation.non_llm import estimate_embeddings, estimate_images, estimate_transcription
from bot.estimation.results import (
    DecodeBreakdown,
    EmbeddingEstimate,
    EstimationError,
    FinetuneEstimate,
    ImageEstimate,
    InferenceEstimate,
    MemoryBreakdown,
    TrainingEstimate,
    TrainingMemory,
    TranscriptionEstimate,
)
from bot.estimation.training import (
    estimate_finetune,
    estimate_finetune_for,
    estimate_training,
    estimate_training_for,
    lora_trainable_params,
)
from bot.estimation.workload import ServingWorkload, WorkloadAssumption, serving_workload

__all__ = [
    "GB",
    "GIB",
    "DecodeBreakdown",
    "EfficiencyTable",
    "EmbeddingEstimate",
    "EstimationError",
    "ImageEstimate",
    "FinetuneEstimate",
    "InferenceEstimate",
    "KvShape",
    "MemoryBreakdown",
    "ServingWorkload",
    "TrainingEstimate",
    "TrainingMemory",
    "TranscriptionEstimate",
    "WorkloadAssumption",
    "cost_per_million_tokens",
    "gpu_hour_price",
    "estimate_embeddings",
    "estimate_images",
    "estimate_transcription",
    "efficiency_for",
    "estimate_finetune",
    "estimate_finetune_for",
    "estimate_inference",
    "estimate_inference_for",
    "estimate_training",
    "estimate_training_for",
    "generic_model",
    "kv_shape",
    "load_efficiency",
    "lora_trainable_params",
    "resolve_precision",
    "serving_workload",
    "usable_memory_gb",
    "valid_tp_degrees",
    "weight_bytes",
]

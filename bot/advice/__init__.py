"""Advice: from a request to a typed Answer, one module per intent over one planner.

``advise(query, kb)`` (:mod:`bot.advice.advise`) dispatches on the routed intent; the modules are
``serving`` (size_inference), ``training``, ``finetune``, ``compare``, ``quote``, ``recommend``, ``spec``,
``diagnose`` and ``help``; they share the planner (:mod:`bot.advice.planner`) and never call each other.
"""

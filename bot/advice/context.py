"""What one answer accumulates while it is worked out: the request, the knowledge, and typed notes.

Every advice module receives a :class:`Context`; the planner and the modules record assumptions,
warnings and things missing as :class:`~bot.notes.Note` records, and the sources of the figures they use.
:meth:`Context.answer` assembles the :class:`~bot.advice.answer.Answer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from bot.advice.answer import Action, Answer, Option, Table
from bot.estimation.efficiency import efficiency_for
from bot.estimation.traffic import Traffic, traffic_from_daily_users
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Policy
from bot.notes import Note, note
from bot.parsing.query import Query
from bot.pricing.currency import to_usd
from bot.pricing.offers import OfferTable, offer_table

__all__ = ["Context"]


#: Limits notes that lead an answer: a stated quantity was not used, a GPU variant named does not exist.
_LEADING_LIMITS = frozenset({"quantity_over_limit", "quantity_unusable", "closed_model", "currency_without_rate",
                             "unknown_variant"})
#: Headlines that already state the bound they hit (a quote of more GPUs than the sizing bound, priced at list), or
#: that answer the figure quoted (a claim's verdict: "H100 NVL with 188GB" is the claim, not an unknown variant).
_SAYS_ITS_LIMIT = frozenset({"quote_count_over_limit", "claim_verdict"})
#: Parser notes that say a model name the knowledge base lacks was sized by the parameter count it carries.
_SIZED_UNKNOWN = frozenset({"unknown_model_generic", "generic_model_named"})


@dataclass
class Context:
    """The request being answered, the knowledge it is answered from, and what the answer accumulates.

    Attributes:
        query: the request.
        kb: the knowledge base.
        today: the date prices are judged against.
        offers: the offer table (curated and refreshed prices).
        assumptions, warnings, missing: typed notes, in order, without duplicates.
        sources: where the figures come from.
        price_dates: the ``as_of`` dates of the prices used.
        traffic: the load derived from daily active users (:meth:`_users_from_daily_users`), ``None`` when the
            question gives its concurrency or no user base; traffic_output_tokens: the output tokens per request it
            assumed.
    """

    query: Query
    kb: KnowledgeBase
    today: date
    offers: OfferTable = None  # type: ignore[assignment]
    assumptions: list[Note] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)
    missing: list[Note] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    price_dates: list[date] = field(default_factory=list)
    traffic: Traffic | None = None
    traffic_output_tokens: int = 0

    def __post_init__(self) -> None:
        if self.offers is None:
            self.offers = offer_table(self.kb)
        # a model name the knowledge base lacks, sized by the parameter count it carries ("pythia-2.8b"), is said
        # where the user sees it, not among the assumptions
        sized = _SIZED_UNKNOWN if any(t.sized for t in self.query.unknown_terms) else frozenset()
        self.assumptions.extend(n for n in self.query.notes if n.code not in sized)
        self.warnings.extend(n for n in self.query.notes if n.code in sized and not n.params.get("approximate"))
        self.assumptions.extend(n for n in self.query.notes if n.code in sized and n.params.get("approximate"))
        unlisted = {u.name: u for u in self.kb.unlisted}
        for term in self.query.unknown_terms:
            entry = unlisted.get(term.unlisted or "")
            if term.sized:
                continue  # said above: sized as a generic model, never left out
            if entry is not None:
                self.warnings.append(note("unlisted_gpu", written=term.as_written, name=entry.name,
                                          reason_en=entry.reason.en, reason_zh=entry.reason.zh,
                                          nearest=[self.kb.gpus[g].name for g in entry.nearest if g in self.kb.gpus]))
            elif term.kind == "provider":  # a cloud no price file knows: said, never priced as another
                self.warnings.append(note("unknown_provider", written=term.as_written))
            elif term.kind == "model" and not self.query.models:
                self.warnings.append(note("unknown_model", written=term.as_written, suggestions=term.suggestions))
            else:
                self.warnings.append(note("unknown_term", written=term.as_written, kind=term.kind,
                                          suggestions=term.suggestions))
        unusable = {n.params.get("written", "").lower() for n in self.query.limits if n.code == "quantity_unusable"}
        rest = [x for x in self.query.not_understood if x.lower() not in unusable]
        if rest:
            self.warnings.append(note("not_understood", items=rest))
        self.warnings.extend(n for n in self.query.limits if n not in self.warnings)
        self._users_from_daily_users()
        self._rental_from_gpu_hours()
        if self.query.language == "other":
            self.warnings.append(note("answer_in_english"))  # said once, where the reader sees it

    def _users_from_daily_users(self) -> None:
        """Size daily active users as the requests in flight at the busiest time, when no concurrency is given.

        By Little's law (:func:`bot.estimation.traffic.traffic_from_daily_users`): ``daily users x requests a day
        each / 86,400 s x peak factor x seconds per request``, rounded up. Requests a day and the peak factor are the
        question's (``Query.requests_per_user_per_day``, ``Query.peak_factor``), else the policy's defaults
        (``serving.requests_per_daily_user``, ``serving.peak_to_average``); a request takes its output tokens
        (the question's, else efficiency.yaml ``default_output_tokens``) at the per-user speed the user stated, else
        the per-user floor (``serving.min_tokens_per_s_per_user``): the longest the sizing allows. The request is replaced by a copy with
        ``concurrent_users`` set, :attr:`traffic` keeps the derivation, and a warning states it, since "5k DAU" is
        not 5,000 users at once. Nothing is done without the policy's defaults or when concurrent users are given.
        """
        q = self.query
        if q.monthly_active_users and not q.concurrent_users and not q.daily_active_users:
            # a month's users say nothing of how many are in flight: the answer asks for the share at once
            self.warnings.insert(0, note("monthly_users_no_concurrency", monthly_users=q.monthly_active_users))
        policy = self.kb.policy.serving if self.kb.policy is not None else None
        if not q.daily_active_users or q.concurrent_users or policy is None or \
                policy.requests_per_daily_user is None or policy.peak_to_average is None:
            return
        per_day = q.requests_per_user_per_day or policy.requests_per_daily_user.value
        peak = q.peak_factor or policy.peak_to_average.value
        output_tokens = q.output_tokens or int(efficiency_for(self.kb).c("default_output_tokens"))
        floor = policy.min_tokens_per_s_per_user.value
        stated = q.per_user_tokens_per_s or (q.target_tokens_per_s if q.target_scope == "per_user" else None)
        if stated:  # the per-user speed the user asked for: each request takes its output at that speed
            floor = stated
        traffic = traffic_from_daily_users(q.daily_active_users, per_day, peak, output_tokens / floor)
        self.traffic, self.traffic_output_tokens = traffic, output_tokens
        self.query = q.model_copy(update={"concurrent_users": traffic.concurrent})
        self.warnings.insert(0, note(
            "users_from_daily_users", daily_users=q.daily_active_users, users=traffic.concurrent,
            requests_per_day=per_day, requests_assumed=q.requests_per_user_per_day is None,
            peak_factor=traffic.peak_factor, peak_assumed=q.peak_factor is None, average_rps=traffic.average_rps,
            peak_rps=traffic.peak_rps, request_s=traffic.seconds_per_request, output_tokens=output_tokens,
            floor_tps=floor, in_flight=traffic.in_flight))
        if q.requests_per_user_per_day is None:
            self.sources.append(f"knowledge/policy.yaml serving.requests_per_daily_user: "
                                f"{policy.requests_per_daily_user.source}")
        if q.peak_factor is None:
            self.sources.append(f"knowledge/policy.yaml serving.peak_to_average: {policy.peak_to_average.source}")
        self.sources.append("Little's law, L = lambda x W (J. D. C. Little 1961, Operations Research 9(3):383-387)")

    def _rental_from_gpu_hours(self) -> None:
        """Price GPU-hours as a rental ("what do 20,000 H100 GPU-hours cost"): with no length of time given, the GPUs
        counted (the one GPU named with a count, else the count said apart, else one) for ``gpu_hours / count`` hours,
        which costs the GPU-hours at the price per GPU-hour whatever the count. Only for a quote: a training answer
        reads the GPU-hours itself. An assumption states the reading."""
        q = self.query
        if q.intent != "quote" or not q.gpu_hours or q.duration_hours or q.deadline_hours:
            return
        counts = [g.count for g in q.gpus if g.id and g.count]
        count = counts[0] if len(counts) == 1 else q.gpu_count or 1
        hours = q.gpu_hours / count
        self.query = q.model_copy(update={"duration_hours": hours})
        self.assumptions.append(note("gpu_hours_as_rental", gpu_hours=q.gpu_hours, count=count, hours=hours))

    @property
    def policy(self) -> Policy:
        """The advice policy (``knowledge/policy.yaml``)."""
        if self.kb.policy is None:
            from bot.errors import AdvisorError

            raise AdvisorError("the knowledge base has no policy.yaml")
        return self.kb.policy

    @property
    def zh(self) -> bool:
        """The question was asked in Chinese."""
        return self.query.language == "zh"

    def usd(self, money) -> float | None:
        """A :class:`~bot.parsing.query.Money` in USD (see :meth:`to_usd`); ``None`` for none."""
        if money is None:
            return None
        return self.to_usd(money.amount, money.currency)

    def to_usd(self, amount: float, currency: str) -> float | None:
        """``amount`` of ``currency`` in USD at the knowledge base's dated rate (:func:`bot.pricing.currency.to_usd`).

        A CNY conversion is stated as an assumption (``cny_rate_used``, as for every Chinese question); any other
        currency's as a warning the reader sees (``fx_rate_used``: the amount, the rate, its date), since every
        figure after it is in dollars. ``None`` when no rate covers the currency (the parser sets such amounts
        aside and the answer says so: :func:`bot.parsing.parser.parse_question`).
        """
        conv = to_usd(self.kb, amount, currency)
        if conv is None:
            return None
        if currency == "cny":
            self.assume("cny_rate_used", rate=conv.per_usd, rate_date=conv.rate_date)
        elif currency != "usd":
            self.warn("fx_rate_used", money={"amount": amount, "currency": currency}, converted_usd=conv.usd,
                      currency=currency.upper(), usd_per_unit=1 / conv.per_usd, rate_date=conv.rate_date)
            self.cite(conv.source)
        return conv.usd

    def hourly_limit_usd(self) -> tuple[float, bool, str] | None:
        """The most the user will pay per hour: ``(USD, per GPU-hour?, "limit" | "budget")``. A stated hourly
        limit ("under $5/hr", "每卡每小时 8 块以内"), else a budget spread over a stated rental length ("$2,000
        for a week", "每月预算 5 万": budget / hours). ``None`` when neither is given."""
        q = self.query
        if q.price_limit_per_hour is not None:
            usd = self.usd(q.price_limit_per_hour)
            return (usd, q.price_limit_per_gpu, "limit") if usd else None
        if q.budget is not None and q.duration_hours:
            usd = self.usd(q.budget)
            return (usd / q.duration_hours, False, "budget") if usd else None
        return None

    def price_region(self) -> str | None:
        """The region prices are restricted to: the region the question names ("AWS 北京区域" -> ``cn-north-1``)
        when a provider it names declares that region (``regions`` in its price file), recorded as an assumption
        the first time; else ``None`` (every region of the provider, as the price files give them)."""
        region = self.query.region
        if region is None:
            return None
        for pid in self.query.providers:
            pf = self.kb.providers.get(pid)
            if pf is not None and region in pf.regions:
                self.assume("priced_in_region", region=region, provider=pf.provider_name,
                            names=pf.regions[region])
                return region
        return None

    def assume(self, code: str, **params) -> None:
        """Record an assumption (once)."""
        n = note(code, **params)
        if n not in self.assumptions:
            self.assumptions.append(n)

    def warn(self, code: str, **params) -> None:
        """Record a warning (once)."""
        n = note(code, **params)
        if n not in self.warnings:
            self.warnings.append(n)

    def lack(self, code: str, **params) -> None:
        """Record something asked for that is not known (once)."""
        n = note(code, **params)
        if n not in self.missing:
            self.missing.append(n)

    def cite(self, *sources: str) -> None:
        """Record the sources of figures used."""
        for s in sources:
            if s and s not in self.sources:
                self.sources.append(s)

    def _split_group_first(self, options: list[Option], recommendation: int | None,
                           details: list[Note] | None) -> list[Note]:
        """When the option an answer leads with is GPUs the user named together that no instance holds (``2x RTX
        4090``: the card is listed only as 1-GPU instances), its price is N separate instances, an assumption: said
        right under the headline (the instance sizes listed, the instances priced, their price each and in all),
        in place of the same warning at the foot. ``details`` with that line first, or unchanged."""
        lead = options[recommendation] if recommendation is not None and recommendation < len(options) else \
            (options[0] if options else None)
        p = lead.price if lead is not None else None
        if p is None or not p.group_split:
            return list(details or [])
        label = {"gpu_count": lead.gpu_count, "gpu_name": lead.gpu_name}
        self.warnings = [w for w in self.warnings if not (
            w.code == "group_split_instances" and {k: (w.params.get("config") or {}).get(k) for k in label} == label)]
        shapes = self.offers.shapes((lead.gpu or "").split("@")[0]) if lead.gpu else []
        line = note("group_shape_not_listed", config=label, gpu_name=lead.gpu_name, shapes=shapes or None,
                    instances=p.instances, instance=p.instance_type, each_usd=p.price_per_hour_usd / max(1, p.instances),
                    price_usd=p.price_per_hour_usd, provider=p.provider_name)
        return [line, *(details or [])]

    def answer(self, *, title: Note, headline: Note, details: list[Note] | None = None,
               options: list[Option] | None = None, recommendation: int | None = None, table: Table | None = None,
               actions: list[Action] | None = None, examples: list[str] | None = None,
               intent: str | None = None) -> Answer:
        """The :class:`Answer`, with the accumulated notes, sources and price dates."""
        options = options or []
        rate = None
        if self.query.answer_currency == "cny":
            from bot.pricing.currency import cny_per_usd

            rate = cny_per_usd(self.kb)
            if rate is None:
                self.lack("no_cny_rate")
            else:
                self.assume("cny_rate_used", rate=rate[0], rate_date=rate[1])
        if self.zh:
            # a team in mainland China reads these as overseas prices: say so (domestic clouds rarely publish lists)
            overseas = sorted({o.price.provider_name for o in options if o.price is not None and
                               (pf := self.kb.providers.get(o.price.provider)) is not None and pf.market == "global"})
            if overseas:
                self.assume("overseas_prices", providers=overseas)
        details = self._split_group_first(options, recommendation, details)
        dropped = [n for n in self.query.limits if n.code in _LEADING_LIMITS]
        if dropped and headline.code not in _LEADING_LIMITS | _SAYS_ITS_LIMIT:
            # a quantity the user stated and the answer could not use is said first ("0 gpus", "1000000 H100"):
            # everything below is answered without it
            details = [headline, *(details or [])]
            headline = dropped[0]
            self.warnings = [w for w in self.warnings if w != headline]
        dates = sorted({d for d in self.price_dates if d} | {o.price.as_of for o in options
                                                             if o.price is not None and o.price.as_of})
        return Answer(query=self.query, intent=intent or self.query.intent, title=title, headline=headline,
                      details=list(dict.fromkeys(details or [])), options=options, recommendation=recommendation,
                      table=table, assumptions=self.assumptions, warnings=self.warnings, missing=self.missing,
                      sources=self.sources[:12], actions=actions or [], examples=examples or [],
                      price_as_of=[dates[0], dates[-1]] if dates else [],
                      cny_per_usd=rate[0] if rate else None, cny_rate_date=rate[1] if rate else None)

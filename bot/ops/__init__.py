"""Operations: structured logs and Prometheus metrics (no Slack imports)."""

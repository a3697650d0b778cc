"""Web Push: subscriptions, the outbox and its delivery, and who is told what when an act
moves."""

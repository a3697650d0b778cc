"""What the field app keeps on the phone: the town snapshot and its deltas, each vehicle's
standing, the open notices and the supervisor's answers."""

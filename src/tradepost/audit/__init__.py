"""The audit log of operator actions: who did what to which record, when, before and after."""

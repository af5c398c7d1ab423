//! (stage stub)

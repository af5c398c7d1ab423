//! The append-only audit log: one JSON line per event, hash-chained per session.
//!
//! Fail closed: a caller that cannot [`AuditSink::record`] an event must not
//! run the command the event is about.

pub mod event;

pub use event::Event;

/// Where the interpreter sends its events. The real writer appends to a
/// file; tests may collect events in memory.
pub trait AuditSink {
    /// Record one event durably. An `Err` means the event was not recorded
    /// and the action it describes must not happen.
    fn record(&mut self, event: Event) -> Result<(), String>;
}

/// A sink that keeps events in memory (tests, `--explain`).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub events: Vec<Event>,
}

impl AuditSink for MemorySink {
    fn record(&mut self, event: Event) -> Result<(), String> {
        self.events.push(event);
        Ok(())
    }
}

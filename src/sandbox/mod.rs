//! (stage stub)
pub mod exec_chain;
pub mod landlock;
pub mod pin;

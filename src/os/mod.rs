//! The bottom layer: thin, policy-free wrappers over kernel facilities
//! that several stages share — descriptors kept out of a line's reach
//! ([`private_fd`]), the shell's signal state ([`signals`]) and real paths
//! resolved with a memory of the folders on the way ([`real_path`]),
//! the wall-time bound of the line being run ([`deadline`]),
//! random bytes ([`random`]), the `/proc` files a line may read
//! ([`procfs`]), the stack left to recurse ([`stack`]) and the standard
//! descriptors at start ([`stdio`]), unix sockets and the descriptors they
//! carry ([`socket`]).
//! Nothing here depends on any other module of the crate.

pub mod deadline;
pub mod private_fd;
pub mod procfs;
pub mod random;
pub mod real_path;
pub mod signals;
pub mod socket;
pub mod stack;
pub mod stdio;

/// A file descriptor number.
pub type Fd = i32;
/// A process id.
pub type Pid = i32;

//! One seat's live game behind one interface, whatever the variant: the node's way in.
//! The interface is `crate::seat`; the games are picked by name in `crate::registry`.

pub use crate::registry::{Invitees, TableError, demo_options, open, propose, restore, variants};
pub use crate::seat::{Ask, Choice, Table, Timeline};

//! Newtype ids. Each kind has its own number space; host-owned kinds (clients,
//! connections) are numbered by the host, engine-owned kinds by the engine.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(test, derive(ts_rs::TS))]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A DAP client connection, numbered by the host.
    ClientId
);
id_type!(
    /// A debuggee connection accepted on one of the engine's listeners, numbered by the host.
    ConnectionId
);
id_type!(
    /// A listener the engine asked for.
    ListenerId
);
id_type!(
    /// A process the engine asked the host to spawn.
    ProcessId
);
id_type!(
    /// A timer the engine set.
    TimerId
);
id_type!(
    /// A `gatherFacts` request.
    FactRequestId
);
id_type!(
    /// A `connect` request: an outgoing connection the engine asked the host to open.
    ConnectRequestId
);
id_type!(
    /// An `inject` request: a bootstrap the engine asked the host to run inside a
    /// running process (attach by process id).
    InjectionId
);

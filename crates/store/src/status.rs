//! The stored names of the status enums ([`SessionStatus`](crate::SessionStatus),
//! [`TurnStatus`](crate::TurnStatus)): one table of variant and name per enum, and the
//! conversions both ways written once.

/// Gives a fieldless status enum `ALL` (its variants in declaration order), `as_str` (the
/// stored and serialised name of each), `Display` (that name) and `FromStr` (back from it,
/// failing with the `$unknown` error, a tuple struct of the name given).
macro_rules! stored_names {
    ($status:ident, $unknown:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $status {
            /// Every status, in declaration order.
            pub const ALL: [Self; [$($name),+].len()] = [$(Self::$variant),+];

            /// The stored (and serialised) name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }

        impl std::fmt::Display for $status {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $status {
            type Err = $unknown;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .into_iter()
                    .find(|status| status.as_str() == s)
                    .ok_or_else(|| $unknown(s.to_owned()))
            }
        }
    };
}

pub(crate) use stored_names;

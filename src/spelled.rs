//! Closed enumerations with one canonical spelling per value.
//!
//! [`spelled_enum!`] declares such an enumeration from one list of `Variant => "spelling"`
//! pairs, and derives from that list everything else: `ALL` in declaration order,
//! `as_str`, a case-insensitive `parse`, the `allowed` spellings for hints, `Display` and
//! `Serialize` (as the spelling). Declared with a leading `deserialize`, it also gets
//! `Deserialize` from the exact spelling (as serde's derive with the same renames would:
//! same values, same `unknown variant` error); enumerations that read aliases write
//! their own. A value added to the list is at once iterated, parsed, printed and
//! documented; nothing is kept by hand beside it.

/// Declares a closed enumeration with canonical spellings (see the module).
macro_rules! spelled_enum {
    (deserialize $(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $crate::spelled::spelled_enum! { $(#[$meta])* $name { $($(#[$vmeta])* $variant => $text),+ } }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Spelling;
                impl serde::de::Visitor<'_> for Spelling {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "one of {}", $name::allowed())
                    }

                    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<$name, E> {
                        $name::ALL
                            .iter()
                            .copied()
                            .find(|value| value.as_str() == text)
                            .ok_or_else(|| E::unknown_variant(text, &[$($text),+]))
                    }
                }
                deserializer.deserialize_str(Spelling)
            }
        }
    };
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The canonical spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// Matches a spelling case-insensitively, ignoring surrounding white space.
            pub fn parse(text: &str) -> Option<Self> {
                let wanted = text.trim();
                Self::ALL.iter().copied().find(|value| value.as_str().eq_ignore_ascii_case(wanted))
            }

            /// The allowed spellings, comma-separated, for hints.
            pub fn allowed() -> String {
                Self::ALL.iter().map(|value| value.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use spelled_enum;

//! Kubernetes workload manifests named after a payment service
//! (`kustomize/base/paymentservice.yaml`): whether a file is one that only runs a workload
//! (every document a Deployment, Service, ServiceAccount and the like) and whether its two
//! sides differ only in a new tag or digest of the same image. Such a change deploys the
//! service's next release and holds none of its payment logic, so the stream does not
//! read payment into the file's name; any other difference (another registry or image, a
//! command, an argument, a line added) keeps the name's finding (fail closed).

/// Whether the two sides of a manifest are the same line for line except `image:` lines
/// whose image repository (registry and path, before the `:tag` or `@digest`) is the same
/// on both: a release's new tag. A line added or removed, a line of any other key changed,
/// or an image from another repository or registry: not (the change is more than a tag).
pub(super) fn differs_only_in_image_tags(before: &[u8], after: &[u8]) -> bool {
    let lines = |bytes: &'_ [u8]| -> Vec<Vec<u8>> {
        bytes
            .split(|&b| b == b'\n')
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line).to_vec())
            .collect()
    };
    let (before, after) = (lines(before), lines(after));
    before.len() == after.len()
        && before.iter().zip(&after).all(|(old, new)| {
            old == new
                || matches!(
                    (image_repository(old), image_repository(new)),
                    (Some(a), Some(b)) if a == b
                )
        })
}

/// The image repository an `image:` line names (`image: gcr.io/shop/payment:v1` and
/// `- image: "gcr.io/shop/payment@sha256:…"` → the indentation, the key and
/// `gcr.io/shop/payment`), or `None` for any other line. The indentation and the key are
/// kept so that an image moved to another container does not compare equal.
fn image_repository(line: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let text = line.trim_ascii_end();
    let indent_len = text.len() - text.trim_ascii_start().len();
    let (indent, rest) = text.split_at(indent_len);
    let (key, value) = if let Some(value) = rest.strip_prefix(b"image:") {
        (&rest[..b"image:".len()], value)
    } else if let Some(value) = rest.strip_prefix(b"- image:") {
        (&rest[..b"- image:".len()], value)
    } else {
        return None;
    };
    let value = value.trim_ascii();
    let value = value
        .strip_prefix(b"\"")
        .and_then(|v| v.strip_suffix(b"\""))
        .unwrap_or(value);
    // Only the characters of an image reference (registry, path, tag, digest): a comment,
    // a template, a space, an alias, shell punctuation or a line break of YAML 1.1 (NEL,
    // U+2028, read so by Kubernetes' YAML) could carry more than an image name.
    if value.is_empty()
        || !value.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/' | b':' | b'@')
        })
    {
        return None;
    }
    let repository = match value.iter().position(|&b| b == b'@') {
        Some(at) => &value[..at],
        None => {
            let slash = value.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
            match value[slash..].iter().position(|&b| b == b':') {
                Some(colon) => &value[..slash + colon],
                None => value,
            }
        }
    };
    (!repository.is_empty()).then_some((indent, key, repository))
}

/// The kinds of Kubernetes object that run or expose a workload and hold no data of the
/// app: what a manifest of only these deploys is the service, not its logic.
const WORKLOAD_KINDS: &[&[u8]] = &[
    b"Deployment",
    b"StatefulSet",
    b"DaemonSet",
    b"Service",
    b"ServiceAccount",
    b"HorizontalPodAutoscaler",
    b"PodDisruptionBudget",
];

/// Whether `bytes` is a Kubernetes manifest whose every document (split at `---`) has a
/// top-level `apiVersion:` and a top-level `kind:` among [`WORKLOAD_KINDS`]; a document
/// of comments only counts for nothing. A template (`{{ … }}` in a kind) is no such
/// manifest.
pub(super) fn runs_workloads_only(bytes: &[u8]) -> bool {
    // Per document: an apiVersion seen, the kind's answer, any content.
    let mut documents = 0;
    let mut current: (bool, Option<bool>, bool) = (false, None, false);
    let mut close = |(api, kind, content): (bool, Option<bool>, bool)| -> bool {
        if !content {
            return true;
        }
        documents += 1;
        api && kind == Some(true)
    };
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"---") {
            if !close(std::mem::take(&mut current)) {
                return false;
            }
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() || text.starts_with(b"#") {
            continue;
        }
        current.2 = true;
        if let Some(rest) = line.strip_prefix(b"apiVersion:") {
            current.0 = !rest.trim_ascii().is_empty();
        } else if let Some(rest) = line.strip_prefix(b"kind:") {
            let kind = rest.trim_ascii();
            let kind = kind
                .strip_prefix(b"\"")
                .and_then(|k| k.strip_suffix(b"\""))
                .unwrap_or(kind);
            current.1 = Some(current.1 != Some(false) && WORKLOAD_KINDS.contains(&kind));
        }
    }
    let last = close(current);
    last && documents > 0
}

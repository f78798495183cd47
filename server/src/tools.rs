//! The MCP tools' arguments (docs/mcp.md), as Rust types: serde reads them,
//! schemars writes their JSON Schemas. Doc comments are the schema
//! descriptions the model reads, so they are short.

use schemars::JsonSchema;
use serde::Deserialize;

/// `observe`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserveArgs {
    /// full (default), actions (what can be acted on), read (main content as prose).
    pub mode: Option<ModeArg>,
    /// Expand this ref's subtree.
    #[serde(rename = "ref")]
    pub ref_id: Option<u32>,
    /// Token budget (default 3000).
    pub budget: Option<u32>,
    /// Also a picture of the view.
    pub image: Option<bool>,
}

/// The view of `observe`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModeArg {
    Full,
    Actions,
    Read,
}

/// What `act` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Do {
    Click,
    Type,
    Select,
    Check,
    Uncheck,
    Press,
    Scroll,
    Upload,
    Hover,
    Clear,
    Submit,
}

impl Do {
    /// The word the act result prints.
    pub fn word(self) -> &'static str {
        match self {
            Do::Click => "click",
            Do::Type => "type",
            Do::Select => "select",
            Do::Check => "check",
            Do::Uncheck => "uncheck",
            Do::Press => "press",
            Do::Scroll => "scroll",
            Do::Upload => "upload",
            Do::Hover => "hover",
            Do::Clear => "clear",
            Do::Submit => "submit",
        }
    }
}

/// One `act` step.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The action.
    #[serde(rename = "do")]
    pub action: Do,
    /// Target ref.
    #[serde(rename = "ref")]
    pub ref_id: Option<u32>,
    /// The observation the ref was read from.
    pub snapshot_id: Option<String>,
    /// type: the text; click/check/hover without ref: the target's visible text.
    pub text: Option<String>,
    /// select: option labels or values.
    pub values: Option<Vec<String>>,
    /// press: Enter, Tab, Escape, ArrowDown, Control+a…
    pub key: Option<String>,
    /// scroll: screens, negative is up.
    pub dy: Option<f64>,
    /// upload: local file paths.
    pub files: Option<Vec<String>>,
}

/// `act`: one step, or `steps`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActArgs {
    /// The action (one step).
    #[serde(rename = "do")]
    pub action: Option<Do>,
    /// Target ref.
    #[serde(rename = "ref")]
    pub ref_id: Option<u32>,
    /// The observation the ref was read from.
    pub snapshot_id: Option<String>,
    /// type: the text (secret:NAME, ‹card:1› tokens allowed); click/check/hover without ref: the target's visible text.
    pub text: Option<String>,
    /// select: option labels or values.
    pub values: Option<Vec<String>>,
    /// press: Enter, Tab, Escape, ArrowDown, Control+a…
    pub key: Option<String>,
    /// scroll: screens, negative is up.
    pub dy: Option<f64>,
    /// upload: local file paths.
    pub files: Option<Vec<String>>,
    /// Steps with the fields above, run in order until one fails.
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub steps: Option<Vec<Step>>,
    /// Accept what the previous attempt asked to confirm.
    pub confirm: Option<bool>,
}

impl ActArgs {
    /// The steps to run: `steps`, or the single step of the top-level
    /// fields. `Err` says what is wrong with the arguments.
    pub fn into_steps(self) -> Result<Vec<Step>, String> {
        match (self.steps, self.action) {
            (Some(_), Some(_)) => Err("give either `do` or `steps`, not both".into()),
            (Some(steps), None) if steps.is_empty() => Err("`steps` is empty".into()),
            (Some(steps), None) => Ok(steps),
            (None, Some(action)) => Ok(vec![Step {
                action,
                ref_id: self.ref_id,
                snapshot_id: self.snapshot_id,
                text: self.text,
                values: self.values,
                key: self.key,
                dy: self.dy,
                files: self.files,
            }]),
            (None, None) => Err("`do` is required (or `steps`)".into()),
        }
    }
}

/// `navigate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// A URL, search words, or back, forward, reload.
    pub url: String,
    /// Accept what the previous attempt asked to confirm (a resent form).
    pub confirm: Option<bool>,
}

/// `find`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// Words; `role:button pay` filters by role; `css:.a.b` counts visible matches.
    pub q: String,
    /// Most matches listed (default 20).
    pub limit: Option<u32>,
}

/// What `extract` returns.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExtractKind {
    Table,
    List,
    Text,
    Links,
}

/// `extract`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractArgs {
    /// table, list, text or links.
    pub kind: ExtractKind,
    /// Limit to this ref's subtree.
    #[serde(rename = "ref")]
    pub ref_id: Option<u32>,
    /// Continue from this item.
    pub offset: Option<u32>,
    /// Include link URLs.
    pub links: Option<bool>,
}

/// `research`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchArgs {
    /// Pages to digest; none: the result links of the active page.
    pub urls: Option<Vec<String>>,
    /// Most pages (default 10, at most 100).
    pub limit: Option<u32>,
    /// Token budget of all digests (default 4000).
    pub budget: Option<u32>,
    /// Also open the pages as tabs.
    pub keep: Option<bool>,
    /// Run the scripts of pages that need them (slower).
    pub scripts: Option<bool>,
}

/// What `tabs` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TabOp {
    List,
    Open,
    Switch,
    Close,
}

/// `tabs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabsArgs {
    /// list, open, switch or close.
    pub op: TabOp,
    /// open: the URL.
    pub url: Option<String>,
    /// switch/close: the tab's index.
    pub index: Option<u32>,
}

/// `screenshot`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotArgs {
    /// Only this ref's box.
    #[serde(rename = "ref")]
    pub ref_id: Option<u32>,
    /// false: no ref labels.
    pub marks: Option<bool>,
}

/// `wait`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// Until this text is on the page.
    pub text: Option<String>,
    /// Until this text is gone.
    pub gone: Option<String>,
    /// Milliseconds (at most 30000).
    pub ms: Option<u32>,
    /// Hand over to the person (CAPTCHA, 2FA).
    pub user: Option<bool>,
}

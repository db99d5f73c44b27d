/**
 * The DeskCheck artifact's code-reasoning scan, as data: its pattern tables and defaults
 * (AnonyRepo2025/DESKCHECK@4e39ce5546df086ec6fa51d69311a240d08b8b70,
 * Empirical_Study/RQ1/scripts/find_code_tokens_in_prose.py and find_execution_reasoning.py).
 * Python regular expressions with their flags noted; deskcheck.ts runs them as the artifact does.
 * Generated from the artifact's tables — do not edit by hand.
 */
export const DESKCHECK = {
  source:
    "AnonyRepo2025/DESKCHECK@4e39ce5546df086ec6fa51d69311a240d08b8b70, Empirical_Study/RQ1/scripts/find_code_tokens_in_prose.py and find_execution_reasoning.py: the pattern tables of the artifact's code-reasoning scan, as Python regular expressions (flags noted), kept as data so deltalens's deskcheck detector decides as the artifact does",
  fence: '```.*?```|~~~.*?~~~',
  line_numbered: '^\\s*\\d+[\\t:]\\s',
  pr_description: '<pr_description\\b[^>]*>.*?</pr_description\\s*>',
  prose_context:
    '\\b(?:the|is|are|was|were|be|been|being|this|that|these|those|it|its|a|an|of|in|on|to|for|with|from|by|at|as|if|and|or|but|so|because|since|when|while|then|we|you|i|they|he|she|will|would|should|could|can|may|might|must|have|has|had|do|does|did|not|no|yes|which|what|who|where|how|why|means|need|note|seems|appears|expects|expected|call|called|calls|use|used|using|return|returns|check|checks|see|look|set|sets|get|gets)\\b',
  code_tokens: [
    ['`[A-Za-z_][\\w\\.]*(?:\\([^`]{0,80}\\))?`', 'backtick-identifier'],
    ['\\b[a-zA-Z_]\\w*(?:\\.[a-zA-Z_]\\w*)*\\((?:[^()\\n]{0,120})\\)', 'function-call'],
    [
      '\\b(?!e\\.g\\b)[a-z_][a-zA-Z0-9_]*\\.[a-zA-Z_][a-zA-Z0-9_]*(?:\\.[a-zA-Z_][a-zA-Z0-9_]*)*\\b',
      'attribute-access',
    ],
    ['\\b[a-zA-Z_]\\w*(?:\\.[a-zA-Z_]\\w*)*\\[\\s*[`\'\\"]?[\\w\\-+]+[`\'\\"]?\\s*\\]', 'indexed-access'],
    [
      '\\b[a-zA-Z_]\\w*\\s*=\\s*(?!=)(?:[`\'\\"][^`\'\\"\\n]{1,40}[`\'\\"]|\\d+(?:\\.\\d+)?|True|False|None|\\[[^\\n\\]]{0,40}\\]|\\{[^\\n\\}]{0,40}\\}|[a-zA-Z_]\\w*(?:\\.[a-zA-Z_]\\w*)*(?:\\([^()\\n]{0,40}\\))?)',
      'assignment-expression',
    ],
    [
      '\\b[a-zA-Z_]\\w*(?:\\.[a-zA-Z_]\\w*)*\\s*(?:==|!=|<=|>=|<|>)\\s*(?:[`\'\\"][^`\'\\"\\n]{0,40}[`\'\\"]|\\d+(?:\\.\\d+)?|True|False|None|[a-zA-Z_]\\w*(?:\\([^()\\n]{0,40}\\))?)',
      'comparison-expression',
    ],
    ['\\b(?:True|False|None)\\b', 'type-literal'],
    ['(?<![A-Za-z0-9_])@[A-Za-z_]\\w*(?:\\.\\w+)*', 'decorator'],
    ['(?:->|=>|\\+=|-=|\\*=|/=|//=|\\*\\*=|//|\\*\\*)', 'operator-token'],
    ['\\blambda\\s+[a-zA-Z_]\\w*(?:\\s*,\\s*[a-zA-Z_]\\w*)*\\s*:', 'lambda-expression'],
    [
      '(?<![A-Za-z0-9_/])[A-Za-z0-9_-][A-Za-z0-9_./-]{0,199}\\.(?:py|js|ts|tsx|jsx|cpp|cc|c|h|hpp|java|go|rs|rb|sh|json|yaml|yml|toml|md)\\b',
      'file-path',
    ],
    ['(?<![A-Za-z0-9_])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])', 'snake-case-identifier'],
    ['(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z0-9]+){1,}(?![A-Za-z0-9_])', 'camel-case-identifier'],
    ['(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])', 'constant-identifier'],
    ['(?<![A-Za-z0-9_])[A-Z][a-z]+[A-Z][A-Za-z0-9]*(?![A-Za-z0-9_])', 'pascal-case-identifier'],
    [
      '(?<![A-Za-z0-9])(?:\'[A-Za-z_./][\\w./\\-]{0,40}\'|\\"[A-Za-z_./][\\w./\\-]{0,40}\\")(?![A-Za-z0-9])',
      'code-string-literal',
    ],
    ['(?<![A-Za-z0-9_])[rRbBfFuU]{1,2}[`\'\\"]', 'string-prefix'],
  ],
  families: {
    state: [
      [
        '`\\w[\\w\\.\\[\\]]*`\\s+(?:is|was|will be|would be|should be|becomes?|remains?|stays?|equals?)\\s+(?:None|null|nil|empty|True|False|undefined|`[^`]+`|\\"[^\\"]+\\"|\'[^\']+\'|-?\\d+(?:\\.\\d+)?)',
        'exact-variable-state-identification',
      ],
      [
        '`?\\w[\\w\\.\\[\\]]*`?\\s+(?:is|gets?|was|are|were)\\s+(?:set|reset|initialized|assigned|updated|cleared|overwritten|incremented|decremented|toggled|populated|filled)\\s+(?:to|with|as|by|from)\\b',
        'variable-state-update',
      ],
      [
        '\\bsets?\\s+`?\\w[\\w\\.\\[\\]]*`?\\s+to\\s+(?:None|null|empty|True|False|`[^`]+`|\\d|the\\s+\\w+|a\\s+\\w+|an\\s+\\w+)',
        'variable-state-update',
      ],
      [
        '\\b(?:when|after|once|while|if|until|before)\\s+(?!(?:it|this|that|there|these|those|he|she|they|we|you|i)\\b)`?\\w[\\w\\.\\[\\]]*`?\\s+(?:is|was|becomes?|gets?|equals?|holds?|contains?)\\s+(?:None|null|empty|True|False|set|reset|`|\\d|the\\s+|a\\s+|an\\s+)',
        'hypothetical-variable-state-assumption',
      ],
      [
        '`\\w[\\w\\.\\[\\]]*`\\s+(?:(?:still|now|only|also|always|never)\\s+)?(?:holds?|contains?|stores?)\\s+(?:(?:the\\s+)?(?:value|reference|None|null|empty|a\\s+|an\\s+|the\\s+)|`[^`\\n]+`|\'[^\'\\n]{0,40}\'|\\"[^\\"\\n]{0,40}\\")',
        'exact-variable-state-identification',
      ],
      [
        '\\b(?!(?:to|might|may|could|would|will|can|cannot|must|that|which|who|likely|probably|also|only|file|files|patch|diff|module|modules|directory|folder|repo|repository|document|page|script|test|tests|class|method|function)\\b)\\w[\\w\\.\\[\\]]*\\s+(?:(?:still|now|only|also|always|never)\\s+)?(?:holds?|contains?|stores?)\\s+(?:the\\s+|a\\s+|an\\s+)?(?:`[^`\\n]+`|\'[^\'\\n]{0,40}\'|\\"[^\\"\\n]{0,40}\\"|values?\\b|references?\\b|None\\b|null\\b|empty\\b|keys?\\b|entr(?:y|ies)\\b|elements?\\b|items?\\b|duplicates?\\b|lists?\\b|dicts?\\b|dictionar(?:y|ies)\\b|tuples?\\b|strings?\\b|integers?\\b|numbers?\\b|cop(?:y|ies)\\b|instances?\\b)',
        'exact-variable-state-identification',
      ],
      [
        '\\b(?:is|was|are|were|gets?|got|being)\\s+(?:coerced|cast|converted|truncated|rounded|normalized|serialized|encoded|decoded)\\s+to\\s+(?:`[^`\\n]{1,60}`|None|True|False|-?\\d+(?:\\.\\d+)?|\'[^\'\\n]{0,40}\'|\\"[^\\"\\n]{0,40}\\")',
        'variable-state-update',
      ],
      ['\\bis\\s+an?\\s+`[^`\\n]{1,60}`\\s+(?:instance|object|subclass)\\b', 'exact-variable-state-identification'],
      [
        '\\b(?:current\\s+)?value\\s+of\\s+(?!(?:`?(?:True|False|None|null)`?)\\b)`?\\w[\\w\\.\\[\\]]*`?\\s+(?:is|was|becomes?)\\b',
        'exact-variable-state-identification',
      ],
      ['`?\\w[\\w\\.\\[\\]]*`?\\s+currently\\s+(?:is|has|holds?|contains?)\\b', 'exact-variable-state-identification'],
      ['\\b(?:default|initial)\\s+value\\s+(?:of|for)\\s+`?\\w[\\w\\.\\[\\]]*`?\\b', 'variable-state-initialization'],
      [
        '`?\\w[\\w\\.\\[\\]]*`?\\s+(?:starts?|is\\s+initially|begins?)\\s+(?:as|out|empty|None)',
        'variable-state-initialization',
      ],
      [
        '`?\\w[\\w\\.\\[\\]]*`?\\s+is\\s+(?:no longer|now)\\s+(?:None|null|empty|set|`|the|a |an )',
        'exact-variable-state-identification',
      ],
      [
        '\\bdefaults?\\s+to\\s+(?:`[^`\\n]{1,60}`|None|True|False|-?\\d+|\'[^\'\\n]{0,40}\'|\\"[^\\"\\n]{0,40}\\")',
        'variable-state-initialization',
      ],
      ['\\b(?:hardcoded|hard-coded)\\s+(?:value|to|as)\\b', 'variable-state-initialization'],
      [
        '\\b(?:shares?|sharing|share)\\s+the\\s+same\\s+(?:dict|dictionary|list|object|instance|reference|state)\\b',
        'exact-variable-state-identification',
      ],
      [
        '\\b(?:is|are|was|were|gets?)\\s+(?:set|updated|assigned|initialized|overwritten|cleared|mutated|modified|reset)\\s+(?:unconditionally|directly|twice|again|first|early|late|eagerly|lazily|implicitly|explicitly)\\b',
        'variable-state-update',
      ],
      [
        '\\b(?:sets?|setting|overwrites?|overwrote|overwriting|forces?|forcing|resets?|hardcodes?)\\s+(?:the\\s+|a\\s+|an\\s+|its\\s+)?`?\\w[\\w\\.\\[\\]]*`?\\s+to\\s+(?:`[^`\\n]{1,60}`|None|True|False|-?\\d+|empty|zero|\'[^\'\\n]{0,40}\'|\\"[^\\"\\n]{0,40}\\")',
        'variable-state-update',
      ],
      [
        "\\bensures?\\s+(?:that\\s+)?(?:it|`[^`\\n]{1,40}`|\\w[\\w.]*)\\s*(?:'?s)?\\s+(?:is\\s+)?(?:at\\s+least|at\\s+most|always|never|non-?empty|not\\s+None|positive)\\b",
        'exact-variable-state-identification',
      ],
    ],
    call_dep: [
      [
        '`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`\\s+(?:calls?|invokes?|triggers?|fires?|kicks?\\s+off|is\\s+calling|will\\s+call)\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'forward-call',
      ],
      [
        '`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`\\s+(?:is|gets?|was|are|were|will\\s+be|would\\s+be|is\\s+being|gets?\\s+being)\\s+(?:called|invoked|triggered|dispatched|forwarded|reached)\\b',
        'backward-call',
      ],
      [
        '\\b(?:called|invoked|triggered|dispatched|forwarded|reached)\\s+(?:by|from|via|in|inside)\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'backward-call',
      ],
      [
        '\\b(?:when|after|once|before|while|until|if)\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`\\s+(?:is|gets?)\\s+(?:called|invoked|triggered|dispatched|reached)\\b',
        'backward-call',
      ],
      [
        '`\\w[\\w\\.]*`\\s+(?:delegates?|dispatches?|forwards?|defers?|hands?\\s+off)\\s+(?:to\\s+)?`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'forward-call',
      ],
      [
        '\\b(?:which|it|that)\\s+(?:calls?|invokes?|triggers?|fires?|dispatches?\\s+to|delegates?\\s+to|forwards?\\s+to|defers?\\s+to)\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'forward-call',
      ],
      [
        '\\b\\w[\\w\\.]*\\s+(?:goes?|routes?|flows?|runs?)\\s+(?:currently\\s+|now\\s+|always\\s+)?through\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'forward-call',
      ],
      [
        '`\\w[\\w\\.]*`\\s+(?:is|gets?|was)\\s+passed\\s+(?:to|into)\\s+`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`',
        'forward-call',
      ],
      [
        '\\b(?:passes?|passed|passing|sends?|sent|forwards?|hands?)\\s+(?:these\\s+|those\\s+|the\\s+|its\\s+|this\\s+|all\\s+|both\\s+)?[\\w`\'\\".\\[\\]]{1,40}(?:\\s+\\w+){0,2}\\s+(?:to|into)\\s+`?\\w[\\w\\.]*(?:\\([^()`\\n]{0,60}\\))?`?',
        'forward-call',
      ],
      ['\\b(?:when|if|after|once|before)\\s+(?:we|you|it|they|the\\s+\\w+)\\s+calls?\\b', 'backward-call'],
      [
        '\\binstead\\s+of\\s+(?:using|calling|invoking|going\\s+through)\\s+(?:the\\s+)?`\\w[\\w\\.\\(\\)]*`',
        'forward-call',
      ],
      [
        '\\btr(?:y|ies|ied|ying)\\s+to\\s+(?:access|call|invoke|look\\s*up|read|fetch|import|load|find|open)\\s+`[^`\\n]+`',
        'forward-call',
      ],
      [
        '\\b(?:adds?|added|adding|passes?|passed|passing)\\s+`[^`\\n]{1,60}`\\s+to\\s+the\\s+`[^`\\n]{1,60}`\\s+(?:call|method|function|constructor)\\b',
        'forward-call',
      ],
      [
        '\\b(?:is|are|was|were|gets?)\\s+(?:instantiated|constructed|created|initialized|invoked|called)\\s+with\\s+`[^`\\n]+`',
        'backward-call',
      ],
      [
        '\\b(?:before|after)\\s+(?:setting|calling|checking|assigning|updating|validating|returning|raising|iterating|appending|writing|reading)\\b',
        'execution-order',
      ],
    ],
    output: [
      [
        '`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`\\s+(?:returns?|returned|will\\s+return|would\\s+return|yields?|emits?|produces?|generates?|prints?|outputs?|evaluates?\\s+to|gives?(?:\\s+(?:us|me|back|you))?)\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'active-returns',
      ],
      [
        '\\b(?:`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`|\\w[\\w_]*)\\s+(?:is|gets?|was|are|were|will\\s+be|would\\s+be|is\\s+being|gets?\\s+being)\\s+(?:returned|yielded|emitted|produced|generated|printed|output)\\b',
        'passive-returns',
      ],
      [
        '\\bthe\\s+(?:\\w+\\s+)?(?:result|output|return\\s+value|returned\\s+value)\\s+(?:of\\s+`\\w[\\w\\.\\(\\)]*`\\s+)?(?:is|was|becomes?|will\\s+be|would\\s+be|equals?)\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'result-of',
      ],
      [
        '`?\\w[\\w\\.\\[\\]]*`?\\s+evaluates?\\s+to\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'evaluates-to',
      ],
      [
        '\\b(?:this|it|that|which)\\s+(?:returns?|yields?|emits?|produces?|generates?|prints?|outputs?|gives?(?:\\s+(?:us|me|back|you))?|evaluates?\\s+to)\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'anaphoric-returns',
      ],
      [
        '`?\\w[\\w\\.]*`?\\s+ends?\\s+up\\s+(?:returning|yielding|emitting|producing|as|with|being)\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'ends-up',
      ],
      [
        '\\bcalling\\s+`\\w[\\w\\.\\(\\)]*`\\s+(?:returns?|yields?|emits?|produces?|prints?|gives?(?:\\s+(?:us|me|back|you))?)\\s+(?:`[^`\\n]{1,80}`|None|null|nil|True|False|NotImplemented|nothing|empty|-?\\d+(?:\\.\\d+)?|\\"[^\\"\\n]{0,60}\\"|\'[^\'\\n]{0,60}\'|the\\s+(?:value|result|string|list|tuple|dict|set|empty|same)\\b|an?\\s+(?:value|result|string|list|tuple|dict|set|empty)\\b)',
        'calling-returns',
      ],
      [
        '`\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`\\s+(?:returns?|returned|will\\s+return|would\\s+return|yields?|emits?|produces?|gives?|outputs?|prints?|evaluates?\\s+to)\\s+(?:the|an?|its|their)\\s+\\w+',
        'active-returns',
      ],
      [
        '\\b(?:splits?|converts?|turns?|transforms?|parses?|expands?|collapses?|coerces?|casts?|maps?)\\s+[^.\\n]{1,60}\\s+(?:in)?to\\s+(?:`[^`\\n]{1,80}`|\\[[^\\]\\n]{0,60}\\])',
        'value-transformation',
      ],
      [
        '(?<!\\buse\\s)(?<!uses\\s)(?<!used\\s)(?<!using\\s)(?<!mport\\s)`[^`\\n]{1,60}`\\s+instead\\s+of\\s+`[^`\\n]{1,60}`',
        'value-contrast',
      ],
      [
        '\\b(?:causes?|causing|caused|triggers?|triggering|results?\\s+in|resulting\\s+in|leads?\\s+to|leading\\s+to)\\s+(?:an?\\s+|the\\s+)?(?:(?-i:[A-Z]\\w*(?:Error|Exception|Warning))|(?:an?\\s+)?(?:crash|exception|error|infinite\\s+loop|overflow|recursion))',
        'runtime-exception',
      ],
      [
        '\\b(?:causes?|causing|caused|triggers?|triggering|results?\\s+in|resulting\\s+in|leads?\\s+to|leading\\s+to)\\s+(?:an?\\s+|the\\s+)?`[^`\\n]{1,60}`',
        'runtime-effect',
      ],
      [
        '\\b(?:fails?|failed|failing|errors?|crashes?|crashed)\\s+with\\s+(?:an?\\s+|the\\s+)?(?:(?-i:[A-Z]\\w*(?:Error|Exception|Warning))|`[^`\\n]{1,60}`)',
        'runtime-exception',
      ],
      ["\\b(?:won'?t|isn'?t|not|never|doesn'?t\\s+get)\\s+(?:be\\s+)?caught\\b", 'runtime-exception'],
      [
        '\\b(?:division\\s+by\\s+zero|infinite\\s+(?:loop|recursion)|off-by-one|out\\s+of\\s+(?:range|bounds)|integer\\s+overflow|race\\s+condition|deadlock)\\b',
        'runtime-exception',
      ],
      [
        '\\b(?:reach(?:es|ed|ing)?|hits?|hitting|executes?|executing|skips?|skipping|falls?\\s+through\\s+to|stops?\\s+at|ends?\\s+at|evaluates?|never\\s+reach(?:es|ed)?)\\s+(?:the\\s+)?`(?:return|raise)\\s[^`\\n]{1,120}`',
        'inline-return-statement',
      ],
      [
        '`(?:return|raise)\\s[^`\\n]{1,120}`\\s+(?:is\\s+(?:reached|executed|hit|skipped|never)|executes?|runs?|fires?|never\\s+(?:runs?|executes?|fires?))\\b',
        'inline-return-statement',
      ],
      [
        '\\b(?:confirms?|confirmed|verified|verifies)\\s+(?:that\\s+)?(?:the\\s+)?(?:bug|issue|fix|error|behavior|problem)',
        'verified-behavior',
      ],
      [
        '\\b(?:successfully\\s+)?reproduce[sd]\\s+the\\s+(?:issue|bug|error|problem|crash|failure)\\b',
        'verified-behavior',
      ],
      ['\\b(?:preserv(?:es?|ing)|maintain(?:s|ing)?)\\s+(?:insertion\\s+)?order\\b', 'verified-behavior'],
      [
        '\\b(?:all|the|existing|new|both|these|those|every)\\s+(?:\\w+\\s+)?tests?\\s+(?:now\\s+)?(?:pass(?:es|ed)?|fail(?:s|ed)?)\\b',
        'verified-behavior',
      ],
    ],
    loop: [
      [
        '\\b(?:`\\w[\\w\\.]*`|\\w[\\w_]*)\\s+(?:iterates?|iterating|loops?|looping|cycles?|cycling)\\s+(?:over|through|across|down)\\s+(?:the\\s+|each\\s+|every\\s+|all\\s+|its\\s+)?`?\\w[\\w\\.]*(?:\\([^()`]{0,80}\\))?`?',
        'post-loop',
      ],
      [
        '\\b(?:walks?|walking|traverses?|traversing)\\s+(?:through\\s+|down\\s+|across\\s+)?(?:the|each|every|all|its)\\s+(?:`\\w[\\w\\.]*`|(?-i:\\w*[A-Z][A-Za-z0-9]*)|\\w*_\\w+)',
        'post-loop',
      ],
      ['\\bfor\\s+each\\s+iteration\\b', 'iteration-level'],
      [
        '\\b(?:first|second|third|next|last|previous|each|every|same|current|final|prior|nth|n-?th|inner|outer)\\s+iteration\\b',
        'iteration-level',
      ],
      [
        '\\b(?:on|at|in|during|after|before)\\s+(?:the\\s+)?(?:first|second|third|next|last|each|every|previous|current|final)\\s+iteration\\b',
        'iteration-level',
      ],
      [
        '\\b(?:in|inside|within|throughout|during|later\\s+in|earlier\\s+in)\\s+(?:the|this|that|a|each|inner|outer|nested)\\s+(?:for\\s+|while\\s+|inner\\s+|outer\\s+|nested\\s+)?loops?\\b',
        'iteration-level',
      ],
      [
        '\\b(?:enters?|enter\\s+into|exits?|leaves?|terminates?|breaks?\\s+out\\s+of|breaks?\\s+from|continues?\\s+(?:to\\s+(?:the\\s+)?next|with|in)|skips?|completes?\\s+(?:without|with))\\s+(?:the|this|that|a)?\\s*(?:for\\s+|while\\s+|inner\\s+|outer\\s+|nested\\s+)?loops?\\b',
        'post-loop',
      ],
      [
        '\\b(?:the|this|that|each)\\s+(?:for\\s+|while\\s+|inner\\s+|outer\\s+|nested\\s+)?loop\\s+(?:iterates?|loops?|processes?|executes?|runs?|continues?|terminates?|exits?|completes?|finishes?|stops?|begins?|starts?|breaks?)\\b',
        'post-loop',
      ],
      ['\\b(?:a|the|this|that|each|nested|inner|outer)\\s+(?:for|while)\\s+loops?\\b', 'post-loop'],
      ['\\bloop\\s+(?:body|condition|counter|variable|index|invariant|iterator|increment)\\b', 'post-loop'],
      ['\\biterating\\s+(?:over\\s+`?\\w[\\w\\.]*`?\\s+)?(?:gives?|yields?|produces?|returns?)\\b', 'post-loop'],
      [
        '\\b(?:escapes|marks|converts|wraps|copies|checks|validates|processes|transforms|deduplicates|normalizes)\\s+each\\s+\\w+',
        'iteration-level',
      ],
      ['\\b(?:stops?|stopped|stopping|truncates?|cuts\\s+off)\\s+at\\s+the\\s+\\w+', 'post-loop'],
      [
        '\\b(?:iterat\\w+|loops?|looping|enters?|executes?|executing|runs?|running|hits?|reach\\w+)\\s+[^`\\n]{0,30}`for\\s[^`\\n]{1,120}`',
        'post-loop',
      ],
      [
        "`for\\s[^`\\n]{1,120}`\\s*[-\u2014:,]?\\s*(?:loop|iterates?|executes?|runs?|(?:this\\s+loop\\s+)?(?:doesn'?t|never)\\s+(?:execute|run)s?)\\b",
        'post-loop',
      ],
    ],
    cond: [
      [
        '\\b(?:takes?|took|taking|hits?|hitting|enters?|entered|entering|falls?|fell|falling|fallen)\\s+(?:into\\s+|to\\s+|through\\s+)?(?:the|this|that|a|an)\\s+(?:if|else|elif|then|else\\s+if)\\s+(?:branch|clause|case|block|path|leg|arm)',
        'branch-taken',
      ],
      [
        '\\b(?:in|inside|within|throughout)\\s+(?:the|this|that|each)\\s+(?:if|else|elif|then)\\s+(?:branch|clause|case|block|path|leg|arm)',
        'branch-taken',
      ],
      [
        '\\b(?:the|this|that|each|either|both|first|second|inner|outer)\\s+(?:(?:if|else|elif|then|else\\s+if)\\s+)?(?:branch|clause|case|path|leg|arm)\\s+(?:is\\s+taken|gets?\\s+taken|will\\s+be\\s+taken|was\\s+taken|is\\s+chosen|gets?\\s+chosen|gets?\\s+executed|is\\s+executed|will\\s+(?:run|execute|fire))',
        'branch-taken',
      ],
      [
        '\\bfalls?\\s+through\\s+(?:to\\s+)?(?:the\\s+)?(?:else|elif|next\\s+case|default|fallback|next\\s+\\w+)',
        'branch-taken',
      ],
      [
        '\\b(?:goes?|going|proceeds?|jumps?)\\s+(?:into|to|through|down)\\s+(?:the\\s+)?(?:if|else|elif|then)\\s+(?:branch|clause|case|block|path)?',
        'branch-taken',
      ],
      [
        '\\b(?:the|this|that|first|second|inner|outer|original)\\s+(?:condition|check|guard|predicate|invariant)\\s+(?:is|was|becomes?|will\\s+be|would\\s+be)\\s+(?:True|False|None|met|satisfied|violated|unmet|already\\s+(?:satisfied|true|false|met))\\b',
        'condition-evaluates',
      ],
      [
        '\\b(?:the\\s+)?(?:condition|check|guard|predicate|invariant)\\s+`[^`\\n]{1,120}`\\s+(?:is|was|evaluates?\\s+to|holds?|fails?|passes?|matches?|becomes?|short-?circuits?|would\\s+be|will\\s+be|could\\s+be|should\\s+be)\\b',
        'condition-evaluates',
      ],
      [
        '\\b(?:the|this|that|first|second|inner|outer)\\s+(?:condition|check|guard|predicate|invariant)s?\\s+(?:fails?|passes?|holds?|succeeds?|matches?|short-?circuits?|always\\s+(?:fails?|passes?|holds?))',
        'condition-evaluates',
      ],
      ['\\bshort-?circuits?\\b', 'condition-evaluates'],
      ['\\b(?:returns?|exits?|breaks?|skips?|bails?(?:\\s+out)?)\\s+early\\b', 'branch-taken'],
      ['\\b(?:hits?|hit|reach(?:es|ed)?|reaching)\\s+(?:the\\s+)?(?:`else`|else)\\b', 'branch-taken'],
      [
        '\\bthe\\s+(?:if|elif|else|else\\s+if|match|switch|ternary)\\s+(?:statement|expression|block|chain)\\s+(?:evaluates?|runs?|matches?|fires?|executes?|tests?)',
        'condition-evaluates',
      ],
      [
        '\\b(?:checks?|checking|evaluates?|evaluating|enters?|entering|hits?|hitting|reach(?:es|ed|ing)?|fails?|passes?|satisfies|triggers?|skips?|due\\s+to)\\s+(?:the\\s+|a\\s+|on\\s+)?`(?:if|elif|while|assert|except)\\s[^`\\n]{1,120}`',
        'condition-evaluates',
      ],
      [
        '`(?:if|elif|while|assert|except)\\s[^`\\n]{1,120}`\\s+(?:condition|check|guard|evaluates?|fails?|passes?|matches?|holds?|short-?circuits?|succeeds?|triggers?|is\\s+(?:True|False|met|satisfied)|would\\s+be|will\\s+be|never|always)\\b',
        'condition-evaluates',
      ],
      [
        '\\b(?:enters?|entered|takes?|took|hits?|hit|reaches?|reached|falls?\\s+into|goes?\\s+(?:in)?to)\\s+(?:the|this|that)\\s+`?(?:if|else|elif|except|try|finally|first|second)`?\\s+(?:branch|block|clause|case|path)\\b',
        'branch-taken',
      ],
      ['\\b(?:condition|check|guard)\\s+(?:for|in|on)\\s+`[^`\\n]+`', 'condition-evaluates'],
      [
        '\\bonly\\s+(?:runs?|executes?|fires?|applies|triggers?|happens?|matches?|raises?)\\s+(?:if|when|for|once)\\b',
        'branch-taken',
      ],
    ],
    others: [
      [
        '\\b(?:raises?|raised|raising)\\s+(?:an?\\s+|the\\s+)?(?:(?-i:[A-Z]\\w*(?:Error|Exception|Warning))|`[^`\\n]{1,80}`)',
        'raises-exception',
      ],
      [
        '\\b(?:throws?|threw|throwing)\\s+(?:an?\\s+|the\\s+)?(?:(?-i:[A-Z]\\w*(?:Error|Exception|Warning))|`[^`\\n]{1,80}`)',
        'raises-exception',
      ],
      [
        '\\b(?:an?|the|this|that)\\s+(?-i:[A-Z]\\w*(?:Error|Exception|Warning))\\s+(?:is|was|will\\s+be|would\\s+be|gets?|got)\\s+(?:raised|thrown|emitted|triggered|generated)\\b',
        'raises-exception',
      ],
      [
        '\\bfails?\\s+with\\s+(?:an?\\s+|the\\s+)?(?:(?-i:[A-Z]\\w*(?:Error|Exception|Warning))|`[^`\\n]{1,80}`)',
        'raises-exception',
      ],
      ['\\b(?:would|will|could|might|may)\\s+(?:fail|crash|raise|error\\s+out)\\b', 'raises-exception'],
      ["\\b(?:doesn'?t|don'?t|won'?t|wouldn'?t|didn'?t)\\s+work\\b", 'raises-exception'],
      [
        '\\bincorrect(?:ly)?\\s+(?:returns?|serializes?|parses?|produces?|computes?|treats?|sets?|handles?|stores?|emits?|raises?|yields?|outputs?|formats?|interprets?|encodes?|decodes?|maps?|assigns?)\\b',
        'raises-exception',
      ],
      ['\\bfails?\\s+to\\s+(?:recognize|detect|handle|consider)\\s+(?:`[^`\\n]{1,80}`|\\w+)', 'raises-exception'],
    ],
  },
  observation_kinds: ['verified-behavior'],
  defaults: {
    min_thought_chars: 50,
    max_thought_chars: 500000,
    prose_hits: 1,
    min_score: 1,
    min_reasoning_snippets: 2,
    context_chars: 300,
    top_level_only: false,
  },
} as const;

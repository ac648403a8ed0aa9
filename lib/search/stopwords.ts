/**
 * Stop words: dropped on both the index and the query side. English is a broad list
 * (function words, auxiliaries, pronouns, question words — a question's "what did … do"
 * carries no topic); Chinese and Japanese lists hold particles and the most frequent function
 * words only, so short content words (会议, 部署) always survive.
 */
export const EN_STOP = new Set(`a about above after again against all am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from
further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd
i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or other
ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this those through to too under until up very
was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with
won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
also just really yeah yes oh hey hi hello ok okay thanks thank will shall may might must get got gets s t d ll m re ve
`.split(/\s+/).filter(Boolean));

export const CJK_STOP = new Set(`的 了 是 在 和 就 都 而 及 与 着 或 一个 没有 我们 你们 他们 她们 它们 这 那 这个 那个 之 也 很 吗 呢 吧 啊 么 什么 怎么 哪 哪里 为什么
把 被 让 给 从 向 对 于 以 但 但是 因为 所以 如果 还 又 再 个 些 我 你 他 她 它 有 会 要 能 可以 上 下 中 里 后 前 时 时候
の に は を が で と も へ や から まで より です ます した して する ある いる こと これ それ あれ この その あの ね よ か な だ た て`.split(/\s+/).filter(Boolean));

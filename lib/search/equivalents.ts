/**
 * Equivalents: abbreviations and the other language's words for the things memories are made of
 * (work and tech, family, health, travel). A query naming one form also searches the others, at
 * EQUIVALENT_WEIGHT of their weight, so "OOM" finds "out of memory", "k8s" finds "Kubernetes" and
 * "数据库" finds "database". Curated by hand for any memory, not fitted to a benchmark; a group is
 * a list of forms, each a word or a phrase in any language. Add a group here (and a test) to extend it.
 */
import { toSimplified } from '../format/han.js';

export const EQUIVALENT_WEIGHT = 0.5;

export const EQUIVALENTS: string[][] = [
  // infrastructure and development
  ['k8s', 'kubernetes'],
  ['oom', 'out of memory', '内存溢出', '内存不足'],
  ['db', 'database', '数据库'],
  ['pg', 'postgres', 'postgresql'],
  ['js', 'javascript'],
  ['ts', 'typescript'],
  ['ci', 'continuous integration', '持续集成'],
  ['pr', 'pull request', '合并请求'],
  ['repo', 'repository', '仓库'],
  ['config', 'configuration', '配置'],
  ['env', 'environment', '环境'],
  ['prod', 'production', '生产环境', '线上'],
  ['staging', '预发', '预发布'],
  ['deploy', 'deployment', '部署'],
  ['release', '发布', '发版'],
  ['rollback', '回滚'],
  ['outage', 'incident', '故障', '事故'],
  ['latency', '延迟'],
  ['timeout', '超时'],
  ['cache', '缓存'],
  ['queue', '队列'],
  ['server', '服务器'],
  ['cluster', '集群'],
  ['monitoring', '监控'],
  ['alert', 'alerting', '告警', '报警'],
  ['on-call', 'on call', 'oncall', '值班'],
  ['log', 'logs', '日志'],
  ['backup', '备份'],
  ['migration', 'migrate', '迁移'],
  ['api', '接口'],
  ['auth', 'authentication', '认证', '鉴权'],
  ['perf', 'performance', '性能'],
  ['docs', 'documentation', '文档'],
  ['bug', '缺陷'],
  ['password', '密码'],
  ['test', 'testing', '测试'],
  ['regression test', 'regression testing', '回归测试'],
  ['load test', 'stress test', '压测'],
  ['canary', 'gray release', '灰度'],
  ['rate limit', 'rate limiting', 'throttling', '限流'],
  ['connection pool', '连接池'],
  ['partition', 'partitions', '分区'],
  ['index', '索引'],
  ['port', '端口'],
  ['version', '版本'],
  ['upgrade', '升级'],
  ['crash', '崩溃', '闪退'],
  ['error', '报错', '错误'],
  ['disk', '磁盘'],
  ['certificate', 'cert', '证书'],
  ['permission', 'permissions', '权限'],
  ['offline', '离线'],
  ['upload', '上传'],
  ['download', '下载'],
  ['photo', '照片'],
  ['app', '应用'],
  ['user', '用户'],
  ['order', '订单'],
  ['payment', '支付', '付款'],
  ['exchange rate', '汇率'],
  ['fix', 'fixed', '修复', '修好', '解决'],
  ['decide', 'decision', 'decided', '决定'],
  ['fail', 'failure', 'failed', '失败'],
  ['choose', 'choice', '选择'],
  ['cause', 'root cause', '原因'],
  // work
  ['meeting', '会议', '开会'],
  ['deadline', '截止'],
  ['budget', '预算'],
  ['invoice', '发票'],
  ['contract', '合同'],
  ['analytics', '数据分析', '分析'],
  ['tool', '工具'],
  ['blog', '博客'],
  ['website', '网站', '官网'],
  ['vendor', 'supplier', '供应商'],
  ['feedback', '反馈'],
  ['report', '报告', '报表'],
  ['design', '设计'],
  ['customer', 'client', '客户'],
  ['interview', '面试'],
  ['salary', '工资'],
  ['weekly report', '周报'],
  ['email', '邮件', '邮箱'],
  ['phone', '电话', '手机'],
  ['demo', 'demonstration', '演示'],
  ['care', 'cares', '关心', '在意'],
  ['owner', 'owns', 'in charge', '负责'],
  ['partner', '合作方', '合作伙伴'],
  ['colleague', '同事'],
  ['boss', '老板'],
  ['team', '团队'],
  ['requirement', 'requirements', '需求'],
  ['plan', '计划'],
  ['schedule', '日程'],
  ['driver', '司机'],
  // family and health
  ['wife', '老婆', '妻子'],
  ['husband', '老公', '丈夫'],
  ['mom', 'mother', '妈妈', '母亲'],
  ['dad', 'father', '爸爸', '父亲'],
  ['son', '儿子'],
  ['daughter', '女儿'],
  ['doctor', '医生'],
  ['hospital', '医院'],
  ['surgery', '手术'],
  ['birthday', '生日'],
  ['kid', 'child', 'children', '孩子'],
  ['school', '学校'],
  ['teacher', '老师'],
  ['medicine', '药'],
  ['allergy', 'allergic', '过敏'],
  ['fever', '发烧'],
  ['dentist', '牙医'],
  ['checkup', 'check-up', '体检'],
  ['insurance', '保险'],
  ['restaurant', '餐厅', '饭店'],
  ['dinner', '晚饭', '晚餐'],
  ['lunch', '午饭', '午餐'],
  ['anniversary', '纪念日'],
  // travel and home
  ['flight', '航班', '机票'],
  ['hotel', '酒店'],
  ['business trip', '出差'],
  ['vacation', 'holiday', '假期', '休假'],
  ['renovation', '装修'],
  ['kitchen', '厨房'],
  ['airport', '机场'],
  ['train', '火车', '高铁'],
  ['visa', '签证'],
  ['passport', '护照'],
  ['trip', 'travel', '旅行', '旅游'],
  ['rent', '房租'],
  ['mortgage', '房贷'],
  // places: countries and the cities a memory names most
  ['japan', 'japanese', '日本'],
  ['tokyo', '东京'],
  ['uk', 'britain', 'united kingdom', 'england', '英国'],
  ['london', '伦敦'],
  ['china', 'chinese', '中国'],
  ['usa', 'united states', 'america', '美国'],
  ['beijing', '北京'],
  ['shanghai', '上海'],
  ['shenzhen', '深圳'],
  ['hong kong', '香港'],
  ['singapore', '新加坡'],
];

const forms = new Map<string, string[]>();
const tokensOf = (f: string, tokenize: (s: string) => string[]): string[] => {
  let t = forms.get(f);
  if (!t) forms.set(f, (t = tokenize(f)));
  return t;
};

/** Does the query text hold this form (a Latin form as whole words, a CJK form anywhere)? */
export function holds(text: string, form: string): boolean {
  const i = text.indexOf(form);
  if (i < 0) return false;
  if (/[\u3400-\u9fff]/.test(form)) return true;
  for (let at = i; at >= 0; at = text.indexOf(form, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + form.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after.replace(/s/, ' '))) return true;
  }
  return false;
}

/**
 * The extra query terms for a query: for each group one of whose forms the query text holds, the
 * tokens of its other forms not already among `terms`. Only the groups the query names are
 * tokenized (a cold search pays for no dictionary it does not use).
 */
export function equivalentTerms(query: string, terms: string[], tokenize: (s: string) => string[], known: (term: string) => boolean = () => true): string[] {
  return equivalentsOf(query, terms, tokenize, known).terms;
}

/**
 * equivalentTerms, and which of them stand in for a word the memory never writes: when no form
 * the query holds of a group occurs in the memory (one of its tokens is indexed nowhere, e.g.
 * "regression testing" asked of notes that say only 回归测试), the other forms are the only way
 * the word is found, and there is no literal to weigh them below: they are `full`.
 */
export function equivalentsOf(query: string, terms: string[], tokenize: (s: string) => string[], known: (term: string) => boolean = () => true): { terms: string[]; full: Set<string> } {
  const text = tableText(query);
  const have = new Set(terms);
  const out = new Set<string>();
  const full = new Set<string>();
  // Chinese forms cost a dictionary load (~25 ms) to segment: an English query pays it only in a
  // memory that holds Chinese (one of the table's Chinese words is indexed), where it finds notes
  // written in the other language
  let chinese: boolean | undefined = HAN.test(text) || undefined;
  const memoryHasChinese = (): boolean => (chinese ??= EQUIVALENTS.some((g) => g.some((f) => HAN.test(f) && known(f))));
  for (const g of EQUIVALENTS) {
    const held = g.filter((f) => holds(text, f));
    if (!held.length) continue;
    const absent = held.every((f) => tokensOf(f, tokenize).some((t) => !known(t)));
    for (const f of g) {
      if (HAN.test(f) && !memoryHasChinese()) continue;
      for (const t of tokensOf(f, tokenize)) {
        if (have.has(t)) continue;
        out.add(t);
        if (absent) full.add(t);
      }
    }
  }
  return { terms: [...out], full };
}

const HAN = /[\u3400-\u9fff]/;

/** A query as the table's forms are written: lower case, traditional characters as simplified (數據庫 reads as 数据库; one character for one). */
function tableText(query: string): string { return toSimplified(query.toLowerCase()); }

/** The groups of which the query text holds a form (the words the table bridges for it: the dictionary, bridge.ts, leaves them to it). */
export function heldGroups(query: string): string[][] {
  const text = tableText(query);
  return EQUIVALENTS.filter((g) => g.some((f) => holds(text, f)));
}

/**
 * The query read word by word in the other language through the table: each form it holds replaced
 * by its group's first form of the other script (Chinese for a Latin form, else Latin), so a name
 * declared in one language ("东京合作方") is found from a question in the other ("the Tokyo partner").
 * Undefined when nothing is replaced.
 */
export function translatedQuery(query: string): string | undefined {
  let text = tableText(query);
  let changed = false;
  for (const g of EQUIVALENTS) {
    for (const f of g) {
      if (!holds(text, f)) continue;
      const han = HAN.test(f);
      const other = g.find((o) => HAN.test(o) !== han);
      if (other === undefined) continue;
      text = text.split(f).join(han ? ` ${other} ` : other);
      changed = true;
      break;
    }
  }
  return changed ? text : undefined;
}

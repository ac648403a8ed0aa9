/**
 * Kinds: a question that names a kind of thing ("what sports does John play", "which pets",
 * 养了什么宠物) is answered by lines that name one of its members ("surfing with my friends",
 * "this is Max, my new dog", 我家的猫), which need not say the kind's word at all. A query
 * naming a kind also searches its members, each at KIND_WEIGHT of the kind word's weight (never
 * more than the member's own), so a line that names a member counts about as half a match of the
 * word asked. Curated by hand from general knowledge for the things memories are made of (sports,
 * pets, instruments, games, food, places, family, hobbies, events, exercise, languages, drinks, clothes,
 * and titled works: books, films, songs named in 《》),
 * English and Chinese; not fitted to a benchmark (a kind of jobs and careers was measured and left
 * out: a question about a career is answered by the field, "counseling", more than by a title; so
 * was a kind of charitable causes, which also took "what causes the crash" for a list of causes). A kind is a list of names (the words a question uses for it) and a list of members,
 * each a word or a phrase in either language. A Chinese member is searched as the tokenizer's words
 * for it, never as a single character cut off it (小号 → 小 + 号 searches neither). Add a kind here (and a test) to extend it.
 */
import { toSimplified } from '../format/han.js';
import { holds } from './equivalents.js';
import { TITLE_TERM } from './tokenize.js';

export const KIND_WEIGHT = 0.5;

export interface Kind { names: string[]; members: string[] }

const SPORTS = ['basketball', 'football', 'soccer', 'baseball', 'softball', 'tennis', 'volleyball', 'golf', 'hockey', 'rugby', 'cricket', 'badminton', 'table tennis', 'ping pong', 'swimming', 'running', 'jogging', 'marathon', 'cycling', 'biking', 'surfing', 'skiing', 'snowboarding', 'skating', 'skateboarding', 'climbing', 'bouldering', 'hiking', 'rowing', 'kayaking', 'sailing', 'boxing', 'wrestling', 'fencing', 'archery', 'gymnastics', 'triathlon', 'bowling', 'lacrosse', '篮球', '足球', '排球', '网球', '羽毛球', '乒乓球', '棒球', '高尔夫', '游泳', '跑步', '马拉松', '骑行', '冲浪', '滑雪', '滑冰', '攀岩', '爬山', '徒步', '划船', '拳击', '摔跤', '击剑', '射箭', '体操'];
const MARTIAL = ['karate', 'judo', 'taekwondo', 'kung fu', 'kickboxing', 'boxing', 'jiu-jitsu', 'jiu jitsu', 'aikido', 'muay thai', 'tai chi', 'wing chun', 'mma', 'krav maga', '武术', '功夫', '跆拳道', '空手道', '柔道', '太极', '咏春', '拳击', '散打'];
const ANIMALS = ['dog', 'puppy', 'cat', 'kitten', 'turtle', 'tortoise', 'fish', 'goldfish', 'hamster', 'rabbit', 'bunny', 'bird', 'parrot', 'guinea pig', 'snake', 'lizard', 'gecko', 'horse', 'pony', 'ferret', 'chicken', '狗', '小狗', '猫', '小猫', '乌龟', '鱼', '金鱼', '仓鼠', '兔子', '鸟', '鹦鹉', '蛇', '蜥蜴', '马'];
const INSTRUMENTS = ['piano', 'keyboard', 'guitar', 'violin', 'viola', 'cello', 'bass', 'drums', 'drum', 'flute', 'clarinet', 'oboe', 'saxophone', 'trumpet', 'trombone', 'ukulele', 'harp', 'harmonica', 'banjo', 'accordion', '钢琴', '吉他', '小提琴', '大提琴', '贝斯', '鼓', '架子鼓', '长笛', '单簧管', '萨克斯', '小号', '尤克里里', '二胡', '古筝', '琵琶'];
const GAMES = [TITLE_TERM, 'chess', 'checkers', 'poker', 'catan', 'monopoly', 'scrabble', 'sudoku', 'crossword', 'mahjong', 'go', 'cards', 'puzzle', 'puzzles', 'minecraft', 'fortnite', 'zelda', 'mario', 'pokemon', 'nintendo', 'playstation', 'xbox', 'switch', 'console', 'pc', '象棋', '围棋', '国际象棋', '扑克', '麻将', '桌游', '拼图', '游戏机'];
const DESSERTS = ['cake', 'cupcake', 'cupcakes', 'cookie', 'cookies', 'pie', 'tart', 'brownie', 'brownies', 'ice cream', 'gelato', 'pudding', 'mousse', 'cheesecake', 'muffin', 'muffins', 'donut', 'pastry', 'chocolate', 'parfait', 'sorbet', '蛋糕', '饼干', '冰淇淋', '布丁', '甜点', '巧克力', '派'];
const DISHES = ['pasta', 'pizza', 'soup', 'salad', 'curry', 'stew', 'sandwich', 'burger', 'tacos', 'sushi', 'noodles', 'dumplings', 'bread', 'chili', 'roast', 'steak', 'stir-fry', '面条', '饺子', '包子', '火锅', '汤', '炒饭', '披萨', '寿司', '面包'];
const ARTS = ['painting', 'drawing', 'sketching', 'sculpture', 'pottery', 'ceramics', 'photography', 'calligraphy', 'watercolor', 'watercolour', 'oil painting', 'abstract', 'portrait', 'collage', 'knitting', 'crochet', 'embroidery', 'origami', 'poetry', 'dance', 'dancing', 'music', 'theater', 'theatre', '画画', '绘画', '油画', '水彩', '素描', '雕塑', '陶艺', '摄影', '书法', '舞蹈', '诗'];
const HOBBIES = [...ARTS, 'reading', 'writing', 'cooking', 'baking', 'gardening', 'hiking', 'camping', 'fishing', 'swimming', 'running', 'cycling', 'yoga', 'meditation', 'travel', 'traveling', 'travelling', 'singing', 'gaming', 'volunteering', 'surfing', 'skiing', 'climbing', 'chess', 'woodworking', 'sewing', '阅读', '看书', '写作', '做饭', '烘焙', '园艺', '钓鱼', '露营', '旅行', '唱歌', '瑜伽', '冥想', '志愿'];
const COUNTRIES = ['usa', 'america', 'canada', 'mexico', 'brazil', 'argentina', 'uk', 'england', 'britain', 'scotland', 'ireland', 'france', 'germany', 'italy', 'spain', 'portugal', 'netherlands', 'belgium', 'switzerland', 'austria', 'sweden', 'norway', 'denmark', 'finland', 'iceland', 'poland', 'greece', 'turkey', 'russia', 'egypt', 'morocco', 'kenya', 'south africa', 'india', 'china', 'japan', 'korea', 'thailand', 'vietnam', 'indonesia', 'bali', 'philippines', 'singapore', 'malaysia', 'australia', 'new zealand', 'peru', 'chile', 'colombia', 'cuba', 'jamaica', 'israel', 'dubai', '美国', '加拿大', '英国', '法国', '德国', '意大利', '西班牙', '瑞士', '瑞典', '荷兰', '希腊', '土耳其', '俄罗斯', '埃及', '印度', '中国', '日本', '韩国', '泰国', '越南', '新加坡', '马来西亚', '澳大利亚', '新西兰'];
const CITIES = ['new york', 'los angeles', 'san francisco', 'chicago', 'boston', 'seattle', 'miami', 'las vegas', 'washington', 'houston', 'austin', 'denver', 'portland', 'nashville', 'new orleans', 'toronto', 'vancouver', 'london', 'paris', 'rome', 'venice', 'florence', 'milan', 'barcelona', 'madrid', 'berlin', 'munich', 'amsterdam', 'vienna', 'prague', 'dublin', 'edinburgh', 'lisbon', 'athens', 'istanbul', 'moscow', 'tokyo', 'kyoto', 'osaka', 'seoul', 'beijing', 'shanghai', 'hong kong', 'bangkok', 'sydney', 'melbourne', 'cairo', 'mumbai', 'delhi', '纽约', '洛杉矶', '旧金山', '伦敦', '巴黎', '罗马', '柏林', '东京', '京都', '大阪', '首尔', '北京', '上海', '深圳', '广州', '杭州', '成都', '香港', '曼谷', '悉尼'];
const STATES = ['alabama', 'alaska', 'arizona', 'arkansas', 'california', 'colorado', 'connecticut', 'delaware', 'florida', 'georgia', 'hawaii', 'idaho', 'illinois', 'indiana', 'iowa', 'kansas', 'kentucky', 'louisiana', 'maine', 'maryland', 'massachusetts', 'michigan', 'minnesota', 'mississippi', 'missouri', 'montana', 'nebraska', 'nevada', 'new hampshire', 'new jersey', 'new mexico', 'north carolina', 'north dakota', 'ohio', 'oklahoma', 'oregon', 'pennsylvania', 'rhode island', 'south carolina', 'south dakota', 'tennessee', 'texas', 'utah', 'vermont', 'virginia', 'wisconsin', 'wyoming'];
const LANDSCAPES = ['mountains', 'mountain', 'beach', 'lake', 'river', 'forest', 'park', 'national park', 'island', 'desert', 'canyon', 'coast', 'valley', 'waterfall', '山', '海边', '海滩', '湖', '河', '森林', '公园', '岛', '沙漠', '峡谷'];
const RELATIVES = ['mom', 'mother', 'dad', 'father', 'parents', 'brother', 'sister', 'sibling', 'son', 'daughter', 'kids', 'children', 'wife', 'husband', 'partner', 'grandma', 'grandmother', 'grandpa', 'grandfather', 'aunt', 'uncle', 'cousin', 'niece', 'nephew', '妈妈', '母亲', '爸爸', '父亲', '父母', '哥哥', '姐姐', '弟弟', '妹妹', '儿子', '女儿', '孩子', '老婆', '妻子', '老公', '丈夫', '奶奶', '爷爷', '外婆', '外公', '姥姥', '姥爷', '阿姨', '叔叔', '舅舅', '表哥', '表姐'];
const VEHICLES = ['car', 'truck', 'suv', 'van', 'motorcycle', 'bike', 'bicycle', 'scooter', 'boat', 'rv', '车', '汽车', '摩托车', '自行车', '电动车', '船'];
const GENRES = ['fantasy', 'sci-fi', 'science fiction', 'mystery', 'thriller', 'horror', 'romance', 'comedy', 'drama', 'documentary', 'anime', 'animated', 'action', 'adventure', 'historical', 'biography', 'memoir', 'self-help', 'non-fiction', 'nonfiction', 'jazz', 'rock', 'pop', 'classical', 'country', 'hip hop', 'rap', 'blues', 'folk', 'electronic', 'indie', 'metal', '科幻', '奇幻', '悬疑', '恐怖', '爱情', '喜剧', '纪录片', '动画', '动漫', '古典', '摇滚', '流行', '爵士'];
const EVENTS = ['parade', 'march', 'rally', 'protest', 'conference', 'convention', 'summit', 'seminar', 'workshop', 'meetup', 'concert', 'festival', 'fair', 'expo', 'exhibition', 'exhibit', 'show', 'gala', 'party', 'wedding', 'funeral', 'ceremony', 'graduation', 'reunion', 'fundraiser', 'charity', 'auction', 'marathon', '5k', 'race', 'tournament', 'competition', 'contest', 'match', 'game', 'camp', 'retreat', 'reading', 'recital', 'performance', 'premiere', 'launch', 'drive', 'class', 'lecture', 'talk', '会议', '展会', '展览', '音乐会', '演唱会', '节日', '派对', '聚会', '婚礼', '葬礼', '典礼', '毕业典礼', '比赛', '马拉松', '讲座', '培训', '发布会', '年会'];
const LANGUAGES = ['english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'russian', 'chinese', 'mandarin', 'cantonese', 'japanese', 'korean', 'arabic', 'hindi', 'dutch', 'swedish', 'greek', 'turkish', 'hebrew', 'latin', 'sign language', '英语', '英文', '中文', '汉语', '普通话', '粤语', '日语', '韩语', '法语', '德语', '西班牙语', '俄语'];
const DRINKS = ['coffee', 'tea', 'latte', 'espresso', 'juice', 'smoothie', 'soda', 'water', 'milk', 'wine', 'beer', 'cocktail', 'whiskey', 'lemonade', 'kombucha', '咖啡', '茶', '奶茶', '果汁', '啤酒', '红酒', '白酒', '牛奶'];
const CLOTHES = ['shirt', 't-shirt', 'sweatshirt', 'hoodie', 'sweater', 'jacket', 'coat', 'dress', 'skirt', 'jeans', 'pants', 'shorts', 'suit', 'shoes', 'sneakers', 'boots', 'sandals', 'hat', 'cap', 'scarf', 'gloves', 'socks', 'necklace', 'bracelet', 'ring', 'earrings', 'watch', 'bag', 'backpack', '衣服', '衬衫', '外套', '裙子', '裤子', '鞋', '帽子', '围巾', '项链', '手表', '包'];
const MUSIC = ['jazz', 'rock', 'pop', 'classical', 'country', 'hip hop', 'rap', 'blues', 'folk', 'electronic', 'edm', 'indie', 'metal', 'punk', 'r&b', 'soul', 'reggae', 'opera', 'k-pop', '古典', '摇滚', '流行', '爵士', '民谣', '说唱'];
const EXERCISE = [...SPORTS, 'yoga', 'pilates', 'weight training', 'weightlifting', 'lifting', 'weights', 'strength training', 'circuit training', 'interval training', 'hiit', 'cardio', 'crossfit', 'aerobics', 'zumba', 'spinning', 'treadmill', 'stretching', 'push-ups', 'pushups', 'squats', 'plank', 'walking', 'kickboxing', 'martial arts', '瑜伽', '普拉提', '健身', '举重', '力量训练', '有氧', '跑步机', '拉伸', '散步', '俯卧撑', '深蹲'];

export const KINDS: Kind[] = [
  { names: ['sport', 'sports', '运动', '体育'], members: SPORTS },
  { names: ['martial art', 'martial arts', '武术', '格斗'], members: MARTIAL },
  { names: ['pet', 'pets', 'animal', 'animals', '宠物', '动物'], members: ANIMALS },
  { names: ['instrument', 'instruments', '乐器'], members: INSTRUMENTS },
  { names: ['game', 'games', 'board game', 'board games', 'video game', 'video games', '游戏', '桌游'], members: GAMES },
  { names: ['dessert', 'desserts', 'sweets', 'treats', '甜点', '甜品'], members: DESSERTS },
  { names: ['recipe', 'recipes', 'dish', 'dishes', 'food', 'foods', 'meal', 'meals', '菜谱', '食谱', '菜品', '美食', '食物'], members: [...DISHES, ...DESSERTS] },
  { names: ['art', 'arts', 'artwork', 'craft', 'crafts', '艺术'], members: ARTS },
  { names: ['hobby', 'hobbies', 'activity', 'activities', 'pastime', 'pastimes', '爱好', '兴趣', '活动'], members: HOBBIES },
  { names: ['country', 'countries', '国家'], members: COUNTRIES },
  { names: ['city', 'cities', '城市'], members: CITIES },
  { names: ['states', 'us states', '美国的州'], members: STATES },
  { names: ['places', 'location', 'locations', 'destination', 'destinations', '地点', '目的地'], members: [...COUNTRIES, ...CITIES, ...STATES, ...LANDSCAPES] },
  { names: ['family', 'relative', 'relatives', '家人', '亲戚'], members: RELATIVES },
  { names: ['vehicle', 'vehicles', '交通工具'], members: VEHICLES },
  { names: ['genre', 'genres', '题材'], members: GENRES },
  { names: ['event', 'events', '活动'], members: EVENTS },
  { names: ['exercise', 'exercises', 'workout', 'workouts', 'fitness', '锻炼', '健身'], members: EXERCISE },
  { names: ['language', 'languages', '语言', '外语'], members: LANGUAGES },
  { names: ['drink', 'drinks', 'beverage', 'beverages', '饮料', '喝的'], members: DRINKS },
  { names: ['clothes', 'clothing', 'outfit', 'outfits', 'accessories', '衣服', '穿搭'], members: CLOTHES },
  { names: ['music', 'kind of music', 'type of music', '音乐'], members: MUSIC },
  // a work named in Chinese title marks (《三体》, 〈…〉): the tokenizer gives each title the term 《》
  // (tokenize.ts TITLE_TERM). Not "book" alone (book a flight), "show" (show me) or 书 alone (证书, 秘书, 说明书)
  { names: ['books', 'a book', 'the book', 'what book', 'which book', 'this book', 'that book', 'novel', 'novels', 'film', 'films', 'movie', 'movies', 'tv show', 'tv shows', 'tv series', 'documentary', 'documentaries', 'article', 'articles', 'album', 'albums', 'song', 'songs', '什么书', '本书', '看书', '读书', '书名', '小说', '电影', '影片', '电视剧', '美剧', '韩剧', '日剧', '纪录片', '文章', '专辑', '什么歌', '首歌', '歌名'], members: [TITLE_TERM] },
];

const HAN = /[\u3400-\u9fff]/;
/** Each name with the kinds it names, the longest first. */
const NAMES: [string, Kind[]][] = (() => {
  const m = new Map<string, Kind[]>();
  for (const k of KINDS) for (const n of k.names) m.set(n, [...(m.get(n) ?? []), k]);
  return [...m].sort((a, b) => b[0].length - a[0].length);
})();

/** A kind's members as tokens (a phrase by its last word), Latin then (when wanted) Chinese, made once for the process. */
const tokenCache = new Map<Kind, { latin: string[]; han?: string[] }>();
function memberTokens(k: Kind, tokenize: (s: string) => string[], chinese: () => boolean): string[] {
  let c = tokenCache.get(k);
  // a phrase searches its last word, the head of an English noun phrase and the distinctive part of a
  // name ("table tennis" → tennis, "new york" → york): its other words ("table", "new") name other things
  if (!c) tokenCache.set(k, (c = { latin: tokenize(k.members.filter((m) => !HAN.test(m)).map((m) => m.split(/\s+/).pop()!).join(' , ')) }));
  if (!chinese()) return c.latin;
  // a Chinese member is searched as its words, never as a single character the segmenter cut off
  // it (小号 → 小 + 号 would find every 小 and every 号: 两大一小, 15 号); a one-character member (猫) is its own word
  c.han ??= [...new Set(k.members.filter((m) => HAN.test(m)).flatMap((m) => tokenize(m).filter((t) => t === m || t.length >= 2)))];
  return [...c.latin, ...c.han];
}

/**
 * A name is a word a question uses for the kind and little else: not "place" ("take place"), "state"
 * ("the state of the build"), 州 (广州), 菜 (买菜) or 地方 (什么地方 asks where).
 *
 * The member terms of the kinds the query names, not already among `terms`, each with the kind
 * name it stands for (the query's token of that name, for its weight). A Chinese member only when
 * the query or the memory holds Chinese (one of the kinds' Chinese names is indexed), a member only when the memory holds it
 * (`known`): a member indexed nowhere finds nothing.
 */
export function kindTerms(query: string, terms: string[], tokenize: (s: string) => string[], known: (term: string) => boolean): Map<string, { kind: string; name: string[] }> {
  let text = toSimplified(query.toLowerCase()); // 什麼樂器 names 乐器
  const have = new Set(terms);
  const out = new Map<string, { kind: string; name: string[] }>();
  let chinese: boolean | undefined = HAN.test(text) || undefined;
  const memoryHasChinese = (): boolean => (chinese ??= KINDS.some((k) => k.names.some((n) => HAN.test(n) && known(n))));
  // the longest names first, each blanked out once found: "martial arts" is not also "art"
  const named = new Map<Kind, string>();
  for (const [n, ks] of NAMES) {
    if (!holds(text, n)) continue;
    for (const k of ks) if (!named.has(k)) named.set(k, n);
    text = text.split(n).join(' '.repeat(n.length));
  }
  for (const [k, name] of named) {
    const nameTokens = tokenize(name);
    for (const t of memberTokens(k, tokenize, memoryHasChinese)) {
      if (have.has(t) || out.has(t) || !known(t)) continue;
      out.set(t, { kind: name, name: nameTokens });
    }
  }
  return out;
}
